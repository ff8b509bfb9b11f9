#!/usr/bin/env bash
# The drift bend's CPU (issue 16) and the frame stuffer's (issue 31): what holding a stream's buffer against
# clock drift adds to a stream's real-time cost, per hour of 44.1 kHz stereo audio, straight and at ±300 ppm.
# Both are compiled from the engine's own source as the release build compiles it (-O -wmo). Compare with a
# stream's whole cost in bench/realtime.sh (soxr's variable-rate mode, tried first for this, doubled it).
# Usage: bench/drift.sh [SECONDS]   (default 600 s of audio per case)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mixer=Sources/PlayolaEngine/Mixer
swiftc -O -wmo -package-name bench "$mixer/FractionalDelay.swift" "$mixer/DriftBend.swift" "$mixer/FrameStuffer.swift" \
    bench/drift/main.swift -o "$out/drift"
"$out/drift" "${1:-600}"
