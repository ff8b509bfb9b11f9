#!/usr/bin/env bash
# script/scoped after a failing and after a passing run: the command's exit status comes through, and no temporary
# folder, process (one in a session of its own among them), mount or loop device of the run is left. The mount and
# the loop device need root; without it those two are skipped, and said so.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-scoped.XXXXXX")
trap 'umount "$work/other-run" 2>/dev/null || true; rm -rf "$work"' EXIT
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
root=false; [[ $(id -u) -eq 0 ]] && root=true
$root || echo "test-scoped: not root: the mount and the loop device are not tried"

for expected in 3 0; do
    tag="playola-scoped-test-$$-$expected"
    # The run: a file and a folder in its TMPDIR, a process in a session of its own, a tmpfs and a loop device.
    status=0
    script/scoped bash -c '
        tag=$1 root=$2 expected=$3
        echo "$TMPDIR" >"$4/tmpdir"
        mkdir -p "$TMPDIR/folder" && touch "$TMPDIR/folder/file"
        setsid bash -c "sleep 300; : $tag" </dev/null >/dev/null 2>&1 &
        bash -c "sleep 300; : $tag" </dev/null >/dev/null 2>&1 &
        # A child is found by its command line only after its exec: look until both are there (a loaded gate run
        # looked too soon at 0.5 s, and once found them missing after 5 s).
        for _ in $(seq 300); do pgrep -f "sleep 300; : $tag" >"$4/started"; (($(wc -l <"$4/started") >= 2)) && break; sleep 0.1; done
        if $root; then
            mkdir "$TMPDIR/mnt" && mount -t tmpfs "$tag" "$TMPDIR/mnt"
            truncate -s 1M "$TMPDIR/disk" && losetup -f --show "$TMPDIR/disk" >"$4/loop"
        fi
        exit "$expected"' _ "$tag" "$root" "$expected" "$work" 2>"$work/said" || status=$?
    cat "$work/said"
    [[ $status -eq $expected ]] && pass "exit $expected comes through" || fail "exit $status, not $expected"
    tmpdir=$(cat "$work/tmpdir")
    [[ -n $tmpdir && ! -e $tmpdir ]] && pass "its TMPDIR ($tmpdir) is gone" || fail "its TMPDIR $tmpdir is left"
    [[ $(wc -l <"$work/started") -eq 2 ]] && pass "the run started two processes" ||
        fail "the run did not start its two processes (found within 30 s: $(wc -l <"$work/started"))"
    left=$(pgrep -f "sleep 300; : $tag" || true)
    [[ -z $left ]] && pass "no process of the run is left (one was in a session of its own)" || fail "left running: $left"
    if $root; then
        ! grep -q "$tag" /proc/self/mounts && pass "its tmpfs is unmounted" || fail "its tmpfs is still mounted"
        loop=$(cat "$work/loop")
        [[ -z $(losetup -n -O NAME "$loop" 2>/dev/null | grep -F "$loop" || true) ]] || ! losetup -n -O BACK-FILE "$loop" 2>/dev/null | grep -q "$tmpdir" \
            && pass "its loop device $loop is detached" || fail "its loop device $loop is attached"
    fi
    grep -q 'scoped: left behind: nothing' "$work/said" && pass "it says nothing is left" || fail "it does not say nothing is left"
done

# Another run's mount, made while this one runs, outside its TMPDIR and its checkout: not this run's to undo.
if $root; then
    mkdir -p "$work/other-run"
    ( sleep 0.5; mount -t tmpfs playola-scoped-other "$work/other-run" ) &
    script/scoped sleep 1.5 2>"$work/said"
    wait
    if grep -q "$work/other-run" /proc/self/mounts; then pass "another run's mount made meanwhile is left alone"
    else fail "another run's mount made meanwhile was unmounted: $(cat "$work/said")"; fi
    umount "$work/other-run" 2>/dev/null || true
fi
echo "test-scoped: $failures failed"
((failures == 0))
