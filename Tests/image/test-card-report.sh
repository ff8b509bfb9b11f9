#!/usr/bin/env bash
# The image's card-report (image/files/usr/lib/playola/card-report) on a file system mounted read-only as the
# image mounts its boot partition (issue 40): the service's report is copied byte for byte onto the card as
# playola-report.txt, the partition made writable for that write alone and read-only again after; at most 32 KiB;
# a link is not followed and a FIFO not waited on; a copy within the minute waits, and one while the FAT's other
# writer holds the lock waits for it. (A tmpfs stands in for the FAT here: this kernel has no vfat; the image's
# boots check the FAT itself, with fsck.vfat.)
# Usage (as root, for the mount): Tests/image/test-card-report.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
. Tests/packaging/checks.sh
[[ $(id -u) -eq 0 ]] || { echo "test-card-report: needs root (a read-only mount)" >&2; exit 1; }
command -v flock >/dev/null || { echo "test-card-report: needs flock (util-linux)" >&2; exit 1; }
helper=$PWD/image/files/usr/lib/playola/card-report
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-card-report.XXXXXX")
card=$work/card
cleanup() { mountpoint -q "$card" && umount "$card"; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$card" "$work/service"
mount -t tmpfs -o ro,size=1m,noatime,nosuid,nodev,noexec playola-test-card "$card"
export CARD_REPORT_SOURCE=$work/service/report.txt CARD_REPORT_CARD=$card CARD_REPORT_RUN=$work/run \
    CARD_REPORT_LOCK=$work/lock CARD_REPORT_INTERVAL=0
copied() { cmp -s "$1" "$card/playola-report.txt"; }
read_only() { grep -q "^[^ ]* $card tmpfs ro[, ]" /proc/self/mounts; }

# Bytes as they are, whatever they look like: control characters, an INI section, no final newline.
printf 'State:   error\n\033[31m[update]\nallow_older = yes\n\001\002 last line' >"$CARD_REPORT_SOURCE"
"$helper" 2>"$work/err"; status=$?
same "the report is copied" "$status" 0
check "… byte for byte" copied "$CARD_REPORT_SOURCE"
check "… and the partition is read-only again" read_only
check "… with no temporary file left" test ! -e "$card/playola-report.tmp"
check "… and says so, with its size (the journal's line)" grep -qx "card-report: wrote $card/playola-report.txt (59 bytes)" "$work/err"

head -c 40000 /dev/urandom >"$CARD_REPORT_SOURCE"
"$helper"
same "a report over 32 KiB: only 32 KiB reach the card" "$(stat -c %s "$card/playola-report.txt")" 32768
check "… its first 32 KiB" cmp -s -n 32768 "$CARD_REPORT_SOURCE" "$card/playola-report.txt"

cp "$card/playola-report.txt" "$work/before"
echo secret >"$work/root-only"
rm "$CARD_REPORT_SOURCE"; ln -s "$work/root-only" "$CARD_REPORT_SOURCE"
"$helper" 2>"$work/err"; status=$?
check "a link in the report's place is not followed" test "$status" -ne 0
check "… and the card keeps the last report" copied "$work/before"
rm "$CARD_REPORT_SOURCE"; mkfifo "$CARD_REPORT_SOURCE"
timeout 20 "$helper" 2>"$work/err"; status=$?
check "a FIFO in the report's place is not waited on" test "$status" -ne 124
check "… and the card keeps the last report" copied "$work/before"
check "… and the partition is read-only" read_only

# At most once a minute: a report that changes right after a copy waits for the minute.
rm "$CARD_REPORT_SOURCE" "$work/run/last"; echo "State:   playing" >"$CARD_REPORT_SOURCE"
CARD_REPORT_INTERVAL=60 "$helper"
echo "State:   paused" >"$CARD_REPORT_SOURCE"
CARD_REPORT_INTERVAL=60 timeout 5 "$helper"; status=$?
same "a second copy within the minute waits (still waiting after 5 s)" "$status" 124
check "… the card keeps the first" copied <(echo "State:   playing")
# The boot selection's writer holds the lock: the copy waits for it.
rm -f "$work/run/last"
flock "$CARD_REPORT_LOCK" sleep 3 & holder=$!
sleep 0.5
"$helper"
wait $holder
check "with the FAT's lock held by another writer, the copy waits for it and then writes" copied "$CARD_REPORT_SOURCE"
check "… and the partition is read-only again" read_only
finish
