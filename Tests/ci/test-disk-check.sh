#!/usr/bin/env bash
# The gate on a disk with too little room: .ci/run, copied onto a 64 MiB tmpfs (its TMPDIR there too), fails
# within 10 s with one line naming the room a run needs and the room there is, before it installs or builds
# anything. The tmpfs needs root (or a user namespace that may mount one); without either the test says so.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-disk-check.XXXXXX")
mounted=false
cleanup() { $mounted && umount "$work/disk"; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/disk"
if [[ $(id -u) -ne 0 ]]; then
    echo "test-disk-check: not root: no tmpfs to fill; not run"
    exit 0
fi
mount -t tmpfs -o size=64m playola-test-disk-check "$work/disk" && mounted=true
mkdir -p "$work/disk/clone/.ci" "$work/disk/clone/script" "$work/disk/tmp"
cp .ci/run "$work/disk/clone/.ci/run"
cp script/scoped "$work/disk/clone/script/scoped"
need=$(sed -n 's/^need_gib=\([0-9]*\).*/\1/p' .ci/run)
start=$(date +%s%N)
status=0
( cd "$work/disk/clone" && TMPDIR="$work/disk/tmp" PLAYOLA_SCOPE= timeout 20 bash .ci/run </dev/null >"$work/out" 2>&1 ) || status=$?
took_ms=$((($(date +%s%N) - start) / 1000000))
cat "$work/out"
failures=0
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
check "it fails (exit $status)" '((status == 1))'
check "within 10 s (${took_ms} ms)" '((took_ms < 10000))'
check "in one line" '[[ $(wc -l <"$work/out") -eq 1 ]]'
check "naming the room a run needs (${need} GiB)" 'grep -q "needs ${need} GiB" "$work/out"'
check "and the room there is (under 64 MiB)" 'grep -Eq "has [0-9]{1,2} MiB free" "$work/out"'
check "before anything was made" '[[ -z $(ls -A "$work/disk/tmp") && ! -e $work/disk/clone/.build ]]'
echo "test-disk-check: $failures failed"
((failures == 0))
