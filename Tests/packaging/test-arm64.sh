#!/usr/bin/env bash
# The arm64 package as a Pi owner gets it: `apt install ./playola_<v>_arm64.deb` into a clean Debian trixie
# arm64 root (mmdebstrap, run under qemu-user), every Depends resolved from the archive; then, in that root,
# `playola version`, `playola check-config` of the shipped INI, and a render of the demo schedule (AAC and
# MP3, fades, an overlap) compared sample by sample with the amd64 package's render of the same schedule.
# Usage (as root, after `make deb ARCH=arm64` and `make deb DIST=trixie`): Tests/packaging/test-arm64.sh
#        Tests/packaging/test-arm64.sh --root-only   makes (or finds cached) the clean root and stops: it needs no
#        package, so .ci/run makes it while the unit tests run.
# KEEP=1 keeps the work directory.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

. Tests/packaging/checks.sh
. Tests/packaging/trixie-arm64-root.sh

[[ $(id -u) -eq 0 ]] || { echo "test-arm64: needs root (mmdebstrap --mode=root, chroot)" >&2; exit 1; }
root_only=false
case ${1:-} in
    "") ;;
    --root-only) root_only=true ;;
    *) echo "test-arm64: the one option is --root-only, not $1" >&2; exit 2 ;;
esac
version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/PlayolaEngine/Support/Version.swift)
deb=build/playola_${version}_arm64.deb
amd64_deb=build/playola_${version}_amd64.deb
build_root=build/trixie/root # packaging/build-trixie's: trixie amd64, where the amd64 package's binary runs
if ! $root_only; then
    for file in "$deb" "$amd64_deb" "$build_root/etc/debian_version"; do
        [[ -e $file ]] || { echo "test-arm64: no $file: make deb ARCH=arm64 && make deb DIST=trixie first" >&2; exit 1; }
    done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-arm64.XXXXXX")
[[ -n "${KEEP:-}" ]] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT

clean_arm64_root
$root_only && finish
root=$work/root
unpack_arm64_root "$root"
cp "$deb" "$root/tmp/playola.deb"
start=$SECONDS
if in_root "$root" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends -o Dpkg::Options::=--force-unsafe-io /tmp/playola.deb' >"$work/install.log" 2>&1; then
    pass "apt install ./$(basename "$deb") into a clean trixie arm64 root ($((SECONDS - start)) s)"
else
    fail "apt install ./$(basename "$deb") into a clean trixie arm64 root" "$(tail -n 20 "$work/install.log")"
    finish
fi
same "the installed playola is the arm64 package" \
    "$(in_root "$root" dpkg-query -W -f='${Status} ${Architecture} ${Version}' playola)" "install ok installed arm64 $version"
# Each Depends is installed, and was not in the clean root: apt fetched it from the archive.
missing=""
fetched=0
for package in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -e 's/[|(].*//' -e 's/[[:space:]]//g'); do
    in_root "$root" dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing+=" $package"
    grep -q "Setting up $package:arm64" "$work/install.log" && fetched=$((fetched + 1))
done
same "every Depends installed" "${missing:-none missing}" "none missing"
echo "     $fetched of them installed by this apt install, the others were already in the clean root"

same "playola version (arm64, qemu-user)" "$(in_root "$root" playola version 2>&1)" "playola $version"
if output=$(in_root "$root" playola check-config /etc/playola.ini 2>&1); then
    pass "playola check-config /etc/playola.ini"
else
    fail "playola check-config /etc/playola.ini" "$output"
fi

# The demo schedule, rendered by both packages' binaries: each in a trixie root of its own architecture.
mkdir -p "$work/media" "$work/amd64"
cp demo/schedule.json "$work/"
cp demo/media/* "$work/media/"
dpkg-deb --extract "$amd64_deb" "$work/amd64"
render=(render --schedule /mnt/test/schedule.json --media /mnt/test/media --from 2025-01-01T00:00:00Z
    --duration 50 --format f32)
start=$SECONDS
in_root "$root" playola "${render[@]}" --out /mnt/test/arm64.wav >"$work/arm64.log" 2>&1
arm64_status=$?
arm64_seconds=$((SECONDS - start))
start=$SECONDS
in_root "$repo/$build_root" /mnt/test/amd64/usr/bin/playola "${render[@]}" --out /mnt/test/amd64.wav >"$work/amd64.log" 2>&1
amd64_status=$?
amd64_seconds=$((SECONDS - start))
same "render (arm64, qemu-user: $arm64_seconds s) exits 0" "$arm64_status" 0
same "render (amd64: $amd64_seconds s) exits 0" "$amd64_status" 0
same "both renders log the same spins at the same times" "$(cat "$work/arm64.log")" "$(cat "$work/amd64.log")"
echo "     $(grep -c . "$work/amd64.log") log lines; $(head -n1 "$work/amd64.log")"

# Float WAVs: the same length; the difference far below the signal (different CPUs and libm may differ in
# the last bits of a float, nothing more).
if comparison=$(python3 - "$work/arm64.wav" "$work/amd64.wav" 2>&1 <<'EOF'
import array, math, sys

def samples(path):
    # Python's wave module reads PCM only: the f32 data chunk is found by hand.
    data = open(path, "rb").read()
    offset = 12
    while offset + 8 <= len(data):
        chunk, size = data[offset:offset + 4], int.from_bytes(data[offset + 4:offset + 8], "little")
        if chunk == b"data":
            values = array.array("f")
            values.frombytes(data[offset + 8:offset + 8 + size])
            return values
        offset += 8 + size + (size & 1)
    sys.exit(f"{path}: no data chunk")

arm64, amd64 = samples(sys.argv[1]), samples(sys.argv[2])
if len(arm64) != len(amd64):
    sys.exit(f"lengths differ: {len(arm64)} and {len(amd64)} samples")
db = lambda x: 20 * math.log10(x) if x > 0 else -math.inf
peak = max(abs(v) for v in amd64)
difference = max(abs(a - b) for a, b in zip(arm64, amd64))
print(f"{len(amd64) // 2} frames, peak {db(peak):.1f} dBFS, largest difference {db(difference):.1f} dBFS")
if db(peak) < -20:
    sys.exit("the render is (nearly) silent: nothing to compare")
if db(difference) > -80:
    sys.exit("the renders differ audibly")
EOF
); then
    pass "arm64 and amd64 renders match ($comparison)"
else
    fail "arm64 and amd64 renders match" "$comparison"
fi

finish
