#!/usr/bin/env bash
# The image's installer (image/files/usr/lib/playola/firmware-update) on the host, around a stand-in `rauc` and
# `systemctl` that do what the real ones are asked and record it, with the real dpkg ordering versions (issue 38):
# RAUC's exit status is taken from the process (a crafted "rror … rauc-exit 0" line with exit 1 is a refusal);
# updates only go forward (an older bundle refused from the FAT partition, a file and a URL, the last by RAUC's
# pre-install handler, with [update] allow_older letting the FAT's bundle go back, even one refused before, and
# never a URL's); a slot below the floor is never committed, and one above it never judged (both boot-state
# files lost) is judged as a first boot is; the floor follows commits; the daily check's root step installs the
# INI's URL only; root's records are written in place, two copies, so a torn one is passed over and a partition
# the service filled (no block, no inode) still takes the install; records that cannot be written (a read-only
# card) stop the install with a named error, and five boots do not install it five times; "done" is on the card
# before the restart is asked for.
# Usage (as root, for the full file system's tmpfs): Tests/update/test-firmware-update.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
. Tests/packaging/checks.sh
[[ $(id -u) -eq 0 ]] || { echo "test-firmware-update: needs root (a full tmpfs for the records)" >&2; exit 1; }
installer=$PWD/image/files/usr/lib/playola/firmware-update
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-firmware-update.XXXXXX")
full=$work/full
cleanup() { mountpoint -q "$full" && umount "$full"; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/bin" "$full"

# rauc: info prints the version kept beside the bundle (BUNDLE.version); install runs the system's pre-install
# handler as RAUC does (with RAUC_MF_VERSION), then does what FAKE_INSTALL says; status records marks.
cat >"$work/bin/rauc" <<'EOF'
#!/bin/sh
log=$FAKE_DIR/rauc.log
case $1 in
    info) file=$3; [ -f "$file.version" ] || { echo "signature verification failed"; exit 1; }
        echo "RAUC_MF_COMPATIBLE='playola-rpi'"; echo "RAUC_MF_VERSION='$(cat "$file.version")'" ;;
    install) echo "install $2 (status: $(cat "$FIRMWARE_UPDATE_STATE/status" 2>/dev/null))" >>"$log"
        version=$(cat "$2.version" 2>/dev/null || cat "$FAKE_DIR/url.version")
        if ! said=$(RAUC_MF_VERSION=$version "$FIRMWARE_UPDATE" pre-install 2>&1); then
            echo "rauc-ERROR: Handler error: Child process exited with code 1"; echo "Installing \`$2' failed"; exit 1
        fi
        case ${FAKE_INSTALL:-ok} in
            ok) echo "  40% Copying image to rootfs.1"; echo "100% Installing done."; echo "$version" >"$FAKE_DIR/installed" ;;
            crafted) echo "rauc-ERROR: Failed mounting bundle: rauc-exit 0"; echo "Installing \`$2' failed"; exit 1 ;;
        esac ;;
    status)
        case $2 in
            mark-*) echo "$2 $3" >>"$log" ;;
            --detailed) echo "RAUC_SLOT_BOOTNAME_1='A'"; echo "RAUC_SLOT_BOOTNAME_2='B'"
                echo "RAUC_SLOT_STATUS_BUNDLE_VERSION_2='$(cat "$FAKE_DIR/installed" 2>/dev/null)'" ;;
        esac ;;
esac
exit 0
EOF
# verify-bundle (checked with real bundles by test-bundle.sh): the version kept beside the bundle.
cat >"$work/bin/verify-bundle" <<'EOF'
#!/bin/sh
[ -f "$1.version" ] || { echo "signature verification failed"; exit 1; }
cat "$1.version"
EOF
cat >"$work/bin/systemctl" <<'EOF'
#!/bin/sh
# The reboot, and what the installer's records said when it was asked for.
case "$*" in *ActiveState*) echo active ;; *reboot*) echo "reboot (seen: $("$FIRMWARE_UPDATE" record seen))" >>"$FAKE_DIR/rauc.log" ;; esac
exit 0
EOF
chmod +x "$work/bin/"*

# board VERSION SLOT [FLOOR]: a fresh board running VERSION from SLOT, the floor FLOOR (none if empty).
board() {
    rm -rf "$work/board"; mkdir -p "$work/board/boot"     # state/ and run/ are the installer's to make
    export FAKE_DIR=$work/board FIRMWARE_UPDATE=$installer FIRMWARE_UPDATE_STATE=$work/board/state \
        FIRMWARE_UPDATE_RUN=$work/board/run FIRMWARE_UPDATE_INI=$work/board/boot/playola.ini \
        FIRMWARE_UPDATE_CMDLINE=$work/board/cmdline FIRMWARE_UPDATE_OS_RELEASE=$work/board/os-release \
        FIRMWARE_UPDATE_BUNDLE=$work/board/boot/playola-update.raucb FIRMWARE_UPDATE_VERIFY=$work/bin/verify-bundle \
        PATH=$work/bin:$PATH
    echo "root=PARTUUID=706c6179-0x rauc.slot=$2 ro" >"$work/board/cmdline"
    echo "IMAGE_VERSION=\"$1\"" >"$work/board/os-release"
    [[ -n ${3:-} ]] && { mkdir -p "$work/board/state"; echo "$3" >"$work/board/state/floor"; }
    printf '[player]\nvolume = 50\n' >"$FIRMWARE_UPDATE_INI"
    : >"$work/board/rauc.log"
}
bundle() { echo "$2" >"$1.version"; head -c 70000 /dev/urandom >"$1"; }   # PATH VERSION
run() { "$installer" "$@" >"$work/out" 2>&1; }
record() { "$installer" record "$1"; }
status_says() { printf '#!/bin/sh\necho %s\n' "'$1'" >"$work/bin/playola"; chmod +x "$work/bin/playola"; }
said() { cat "$FIRMWARE_UPDATE_STATE/status" 2>/dev/null; }
has() { # DESCRIPTION FILE TEXT
    if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1" "no '$3' in: $(tr '\n' ' ' <"$2" | cut -c1-300)"; fi
}
hasnt() { if grep -qF -- "$3" "$2"; then fail "$1" "'$3' in: $(tr '\n' ' ' <"$2" | cut -c1-300)"; else pass "$1"; fi; }

# RAUC's verdict is its exit status, not its words.
board 0.2.0 A; bundle "$work/v3.raucb" 0.3.0
FAKE_INSTALL=crafted run install "$work/v3.raucb"; status=$?
same "a crafted 'rror … rauc-exit 0' line with exit 1: the install fails" "$status" 1
has "… and says RAUC's reason" "$FIRMWARE_UPDATE_STATE/status" "refused: rauc-ERROR: Failed mounting bundle"
same "… and records nothing to boot into" "$(record pending)" ""
FAKE_INSTALL=ok run install "$work/v3.raucb"; status=$?
same "a newer bundle with RAUC's exit 0: installed" "$status" 0
same "… recorded for the commit (no service answered: no device known)" "$(record pending)" "0.3.0 B no none"

# Only forward: version 1 while 2 runs.
board 0.2.0 A; bundle "$work/v1.raucb" 0.1.0
run install "$work/v1.raucb"
has "an older file bundle is refused" "$FIRMWARE_UPDATE_STATE/status" "0.1.0 is not newer than 0.2.0 (updates only go forward"
hasnt "… before RAUC is asked" "$work/board/rauc.log" "install"
board 0.2.0 A; echo 0.1.0 >"$work/board/url.version"
run install https://updates.example.com/v1.raucb
has "an older URL bundle is refused by RAUC's pre-install handler, and the status gives its reason" "$FIRMWARE_UPDATE_STATE/status" "v1.raucb refused: 0.1.0 is not newer than 0.2.0"
check "… nothing installed" test ! -e "$work/board/installed"
board 0.2.0 A 0.4.0; bundle "$work/v3.raucb" 0.3.0
run install "$work/v3.raucb"
has "a bundle newer than the running version but not the floor is refused" "$FIRMWARE_UPDATE_STATE/status" "0.3.0 is not newer than 0.4.0"
board 0.2.0 A; bundle "$FIRMWARE_UPDATE_BUNDLE" 0.1.0
FIRMWARE_UPDATE_RESTART=no run boot-partition
has "an older bundle on the FAT partition is refused, naming allow_older" "$FIRMWARE_UPDATE_STATE/status" "allow_older = true in playola.ini"
board 0.2.0 A; bundle "$FIRMWARE_UPDATE_BUNDLE" 0.1.0
printf '[update]\nallow_older = yes ; going back\n' >>"$FIRMWARE_UPDATE_INI"
run boot-partition
has "with allow_older, the FAT's older bundle installs" "$FIRMWARE_UPDATE_STATE/status" "0.1.0 installed into slot B"
same "… recorded as the owner's step back" "$(record pending)" "0.1.0 B yes none"
has "… done is recorded before the restart is asked for" "$work/board/rauc.log" "seen: $(stat -c %s "$FIRMWARE_UPDATE_BUNDLE")"
grep -q "reboot (seen: .* done [a-z]*)" "$work/board/rauc.log" && pass "… and says done" || fail "… and says done" "$(cat "$work/board/rauc.log")"
board 0.2.0 A; bundle "$FIRMWARE_UPDATE_BUNDLE" 0.1.0
FIRMWARE_UPDATE_RESTART=no run boot-partition
FIRMWARE_UPDATE_RESTART=no run boot-partition
has "the card's older bundle, refused, is not tried at the next boot" "$work/out" "was handled at an earlier boot"
printf '[update]\nallow_older = true\n' >>"$FIRMWARE_UPDATE_INI"
FIRMWARE_UPDATE_RESTART=no run boot-partition
has "… until allow_older is set: then it installs" "$FIRMWARE_UPDATE_STATE/status" "0.1.0 installed into slot B"
FIRMWARE_UPDATE_RESTART=no run boot-partition
has "… once" "$work/out" "was handled at an earlier boot"
echo 0.1.0 >"$work/board/url.version"; rm -f "$work/board/installed"
run install https://updates.example.com/v1.raucb
has "with allow_older, a URL's older bundle is still refused" "$FIRMWARE_UPDATE_STATE/status" "0.1.0 is not newer than 0.2.0"
bundle "$work/v1.raucb" 0.1.0
run install "$work/v1.raucb"
has "with allow_older, playola update FILE without --allow-older is still refused" "$FIRMWARE_UPDATE_STATE/status" "0.1.0 is not newer"
ALLOW_OLDER=no run install --allow-older "$work/v1.raucb"
has "playola update --allow-older FILE (a root shell) installs it" "$FIRMWARE_UPDATE_STATE/status" "0.1.0 installed into slot B"

# The daily check's root step installs the INI's [update] url, and only that.
board 0.2.0 A; echo 0.3.0 >"$work/board/url.version"
printf '[update]\nurl = https://updates.example.com/v3.raucb ; the shop server\n' >>"$FIRMWARE_UPDATE_INI"
run check-install
has "check-install: the INI's [update] url, its comment cut off, is installed" "$work/board/rauc.log" "install https://updates.example.com/v3.raucb "
has "… the card says the install did not finish while RAUC writes" "$work/board/rauc.log" "(status: an install of v3.raucb into slot B did not finish)"
has "… and the outcome replaces it" "$FIRMWARE_UPDATE_STATE/status" "0.3.0 installed into slot B; restarting into it"
board 0.2.0 A
run check-install; status=$?
same "check-install without an [update] url: nothing installed, and it fails" "$status $(grep -c install "$work/board/rauc.log")" "1 0"
has "… saying so" "$work/out" "no http(s) [update] url in"

# The commit: a slot below the floor is never marked good.
board 0.1.0 A 0.2.0
FIRMWARE_UPDATE_RESTART=yes run commit
has "both boot-state files lost, slot A (0.1.0) booted under the floor 0.2.0: marked bad" "$work/board/rauc.log" "mark-bad rootfs.0"
has "… slot B made active" "$work/board/rauc.log" "mark-active rootfs.1"
has "… and the board restarts into it" "$work/board/rauc.log" "reboot"
hasnt "… never marked good" "$work/board/rauc.log" "mark-good"
same "… the floor stays" "$(record floor)" 0.2.0
board 0.3.0 B 0.2.0
status_says '{"state":"playing"}'
run commit
has "a slot above the floor, never judged (both boot-state files lost), is judged: kept once it plays" "$work/board/rauc.log" "mark-good rootfs.1"
same "… and the floor follows it up" "$(record floor)" 0.3.0
board 0.3.0 A 0.2.0
status_says '{"state":"stopped"}'
COMMIT_WITHIN=0 run commit
has "… and one whose service does not play is marked bad" "$work/board/rauc.log" "mark-bad rootfs.0"
hasnt "… never good" "$work/board/rauc.log" "mark-good"
same "… the floor stays" "$(record floor)" 0.2.0
board 0.2.0 B 0.2.0
run commit
has "the slot at the floor is marked good without waiting" "$work/board/rauc.log" "mark-good rootfs.1"
same "the status line is the service's to read (0644), the floor root's alone (0600)" \
    "$(stat -c %a "$FIRMWARE_UPDATE_STATE/status" "$FIRMWARE_UPDATE_STATE/floor" | tr '\n' ' ')" "644 600 "
board 0.2.0 A; bundle "$work/v3.raucb" 0.3.0
run install "$work/v3.raucb"
same "the folders it makes let the service reach the status line (0755)" \
    "$(stat -c %a "$FIRMWARE_UPDATE_STATE" "$FIRMWARE_UPDATE_RUN" | tr '\n' ' ')" "755 755 "
board 0.1.0 B 0.2.0; echo "0.1.0 B yes" >"$FIRMWARE_UPDATE_STATE/pending"
status_says '{"state":"playing"}'
run commit
has "the owner's step back is committed once it plays" "$work/board/rauc.log" "mark-good rootfs.1"
same "… and the floor comes down to it" "$(record floor)" 0.1.0

# Commit only what works: a board that had its audio device when the update was installed must play on the
# new slot; one that had none may wait, healthy, for it.
status_says '{"state":"playing","deviceAvailable":true}'
board 0.2.0 A; bundle "$work/v3.raucb" 0.3.0
run install "$work/v3.raucb"
same "the device present at the install is recorded" "$(record pending)" "0.3.0 B no present"
echo 'IMAGE_VERSION="0.3.0"' >"$FIRMWARE_UPDATE_OS_RELEASE"; echo "rauc.slot=B" >"$FIRMWARE_UPDATE_CMDLINE"
status_says '{"state":"paused","reason":"noDevice","deviceAvailable":false}'
COMMIT_WITHIN=0 run commit
has "the new slot waiting for a device the old one played on is rolled back" "$FIRMWARE_UPDATE_STATE/status" "0.3.0 rolled back: the service was not playing within 0 s of its first boot from slot B (the audio device it played on before the update)"
has "… marked bad" "$work/board/rauc.log" "mark-bad rootfs.1"
hasnt "… never good" "$work/board/rauc.log" "mark-good"
board 0.3.0 B; mkdir -p "$FIRMWARE_UPDATE_STATE"; echo "0.3.0 B no none" >"$FIRMWARE_UPDATE_STATE/pending"
COMMIT_WITHIN=0 run commit
has "a board that had no device when it installed: waiting for one is healthy" "$work/board/rauc.log" "mark-good rootfs.1"

# Root's records: two copies written in place, the newer valid one read.
board 0.2.0 A
for version in 0.3.0 0.4.0 0.5.0; do FIRMWARE_UPDATE_STATE=$work/board/state "$installer" commit >/dev/null 2>&1
    echo "IMAGE_VERSION=\"$version\"" >"$FIRMWARE_UPDATE_OS_RELEASE"; done
FIRMWARE_UPDATE_STATE=$work/board/state "$installer" commit >/dev/null 2>&1
same "the floor follows four commits, written in place" "$(record floor) $(stat -c %s "$FIRMWARE_UPDATE_STATE/floor")" "0.5.0 4096"
head -c 2048 /dev/urandom | dd of="$FIRMWARE_UPDATE_STATE/floor" bs=2048 seek=1 count=1 conv=notrunc 2>/dev/null
same "the newer copy torn (a power cut in its write): the other is read" "$(record floor)" 0.4.0
echo 'IMAGE_VERSION="0.6.0"' >"$FIRMWARE_UPDATE_OS_RELEASE"; run commit
same "… and the next write goes over the torn one" "$(record floor) $(dd if="$FIRMWARE_UPDATE_STATE/floor" bs=2048 skip=1 count=1 2>/dev/null | head -n 1 | cut -d' ' -f3)" "0.6.0 0.6.0"

# A board the service has filled, every block and inode: the records, made at their size, still take the
# install, and what it says is in the journal though the status line has no room.
board 0.2.0 A; bundle "$FIRMWARE_UPDATE_BUNDLE" 0.3.0
mount -t tmpfs -o size=64k,nr_inodes=16 playola-test-full "$full"
export FIRMWARE_UPDATE_STATE=$full/state
run commit
n=0; while touch "$full/fill.$n" 2>/dev/null; do n=$((n + 1)); done
head -c 1M /dev/zero 2>/dev/null >"$full/fill" || true
run boot-partition
has "a partition without a free inode or block: the FAT's bundle still installs" "$work/out" "0.3.0 installed into slot B"
same "… recorded for the commit" "$(record pending)" "0.3.0 B no none"
grep -q "reboot (seen: .* done [a-z]*)" "$work/board/rauc.log" && pass "… done, before the restart" || fail "… done, before the restart" "$(cat "$work/board/rauc.log")"
has "… the status line that has no room is said so" "$work/out" "could not be written"

# Records that cannot be written (a card gone read-only): the install stops with a named error, and over 5
# boots RAUC is never asked to install.
board 0.2.0 A; bundle "$FIRMWARE_UPDATE_BUNDLE" 0.3.0
umount "$full"; mount -t tmpfs -o size=64k playola-test-full "$full"
export FIRMWARE_UPDATE_STATE=$full/state
run commit
mount -o remount,ro "$full"
for boot in 1 2 3 4 5; do run boot-partition; done
has "records that cannot be written: the install stops with a named error" "$work/out" "its record ($FIRMWARE_UPDATE_STATE/seen) could not be written"
hasnt "… and over 5 boots RAUC is never asked to install" "$work/board/rauc.log" "install"
hasnt "… nor a restart" "$work/board/rauc.log" "reboot"
board 0.2.0 A; rm -rf "$work/empty"; mkdir "$work/empty"
umount "$full"; mount -t tmpfs -o size=64k,nr_inodes=16 playola-test-full "$full"
export FIRMWARE_UPDATE_STATE=$full/state
n=0; while touch "$full/fill.$n" 2>/dev/null; do n=$((n + 1)); done
bundle "$FIRMWARE_UPDATE_BUNDLE" 0.3.0
for boot in 1 2 3 4 5; do run boot-partition; done
has "records never made, and no inode to make them: a named error" "$work/out" "could not be written"
hasnt "… and over 5 boots RAUC is never asked to install" "$work/board/rauc.log" "install"
umount "$full"
finish
