#!/usr/bin/env bash
# The drift bend's CPU (issue 16): what holding a stream's buffer against clock drift adds to a stream's
# real-time cost, per hour of 44.1 kHz stereo audio, straight and bent by ±300 ppm. The bend is compiled
# from the engine's own source with the release build's optimisation. Compare with a stream's whole cost
# in bench/realtime.sh (soxr's variable-rate mode, tried first for this, doubled it).
# Usage: bench/drift.sh [SECONDS]   (default 600 s of audio per case)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# -wmo, as the release build compiles: the filter (FractionalDelay) is inlined into the bend.
swiftc -O -wmo -package-name bench Sources/PlayolaEngine/Mixer/FractionalDelay.swift Sources/PlayolaEngine/Mixer/DriftBend.swift \
    bench/drift/main.swift -o "$out/drift"
"$out/drift" "${1:-600}"
