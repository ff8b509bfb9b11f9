#!/usr/bin/env bash
# The A/B boot selection of image/uboot/boot.cmd, run by Debian's U-Boot for QEMU's arm64 virt board
# (u-boot-qemu's qemu_arm64, as -bios) on a small card: the FAT partition with boot.scr, root slots A and B
# (partitions 2 and 3) each holding a stand-in kernel that says its slot and powers off
# (Tests/update/stand-in-kernel.S; B's gzip-compressed), a persistent partition. Each boot is a fresh QEMU run on the same card,
# its serial console read. Between boots the state file is read with fw_printenv, and changed by RAUC's own
# U-Boot backend (a RAUC service of the test's: Tests/update/rauc-service.sh) as the running system would.
# Shows: A booted with its tries counted down, B once A's are spent, RAUC's mark-good and mark-active
# obeyed, a new slot whose kernel does not load spending its three tries and A booted after, both slots
# given their tries back when neither has any, an order naming no slot made "A B", a damaged state file
# replaced by U-Boot's copy, and the selection starting over when both are damaged.
# Usage (as root: the RAUC service): Tests/update/test-boot-selection.sh      KEEP=1 keeps the work directory.
# Needs script/setup --update (u-boot-qemu, u-boot-tools, libubootenv-tool, qemu-system-arm, rauc,
# dbus-daemon, dosfstools, mtools, fdisk, e2fsprogs, binutils-aarch64-linux-gnu).
set -uo pipefail
cd "$(dirname "$0")/../.."

. Tests/packaging/checks.sh
. Tests/update/rauc-service.sh

firmware=/usr/lib/u-boot/qemu_arm64/u-boot.bin
[[ $(id -u) -eq 0 ]] || { echo "test-boot-selection: needs root (the RAUC service)" >&2; exit 1; }
for tool in qemu-system-aarch64 mkimage fw_printenv fw_setenv rauc dbus-daemon mkfs.vfat mcopy sfdisk mke2fs \
    aarch64-linux-gnu-as aarch64-linux-gnu-ld aarch64-linux-gnu-objcopy; do
    command -v $tool >/dev/null || { echo "test-boot-selection: no $tool (script/setup --update)" >&2; exit 1; }
done
[[ -f $firmware ]] || { echo "test-boot-selection: no $firmware (apt-get install u-boot-qemu)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-boot-selection.XXXXXX")
cleanup() {
    stop_rauc_service
    [[ -n "${KEEP:-}" ]] && echo "work dir: $work" || rm -rf "$work"
}
trap cleanup EXIT

# The card: MBR with the image's disk identifier; FAT at 1 MiB, A at 9, B at 11, persistent at 13.
root_image() { # root_image SLOT OUTPUT [no-kernel]
    local tree=$work/tree-$1-${3:-kernel}
    mkdir -p "$tree/boot"
    if [[ -z "${3:-}" ]]; then
        sed "s/SLOT/$1/" Tests/update/stand-in-kernel.S >"$work/kernel-$1.S"
        aarch64-linux-gnu-as -o "$work/kernel-$1.o" "$work/kernel-$1.S" &&
            aarch64-linux-gnu-ld -Ttext=0 -o "$work/kernel-$1.elf" "$work/kernel-$1.o" &&
            aarch64-linux-gnu-objcopy -O binary "$work/kernel-$1.elf" "$tree/boot/vmlinuz" || exit 1
        # B's is gzip-compressed (Debian's arm64 vmlinuz is not; a kernel from the kernel's own bindeb-pkg is): booti unpacks it.
        [[ $1 == B ]] && { gzip -9n "$tree/boot/vmlinuz" && mv "$tree/boot/vmlinuz.gz" "$tree/boot/vmlinuz" || exit 1; }
    fi
    echo "stand-in initrd of slot $1" >"$tree/boot/initrd.img"
    mke2fs -q -t ext4 -L playola -d "$tree" "$2" 2M >/dev/null || exit 1
}
root_image A "$work/a.ext4"
root_image B "$work/b.ext4"
root_image B "$work/b-no-kernel.ext4" no-kernel
# A product image's boot.scr, and on its FAT a bootargs.txt as anyone with the card could write it: it must
# not reach the kernel's command line.
image/uboot/make-boot-scr "$work/boot.scr" || exit 1
printf 'playola_bootargs=init=/bin/sh console=ttyAMA0\n' >"$work/bootargs.txt"
mkfs.vfat -n PLAYOLA-BT -C "$work/boot.vfat" 8192 >/dev/null && mcopy -i "$work/boot.vfat" "$work/boot.scr" "$work/bootargs.txt" :: || exit 1
card=$work/card.img
truncate -s 14M "$card"
sfdisk -q "$card" <<TABLE || exit 1
label: dos
label-id: 0x706c6179
start=1MiB, size=8MiB, type=c, bootable
start=9MiB, size=2MiB, type=83
start=11MiB, size=2MiB, type=83
start=13MiB, size=1MiB, type=83
TABLE
place() { dd if="$1" of="$card" bs=1M seek="$2" conv=notrunc status=none; }
place "$work/boot.vfat" 1
place "$work/a.ext4" 9
place "$work/b.ext4" 11

boots=0 boot_seconds=0
# boot: one power-on of the card, to the stand-in kernel's power-off (or U-Boot's reset: -no-reboot).
boot() {
    local start=$SECONDS
    boots=$((boots + 1))
    log=$work/serial-$boots.log
    timeout 180 qemu-system-aarch64 -M virt -cpu cortex-a53 -m 256 -bios "$firmware" -no-reboot \
        -display none -monitor none -serial "file:$log" -net none \
        -drive "if=none,file=$card,format=raw,id=card" -device virtio-blk-device,drive=card
    local status=$?
    boot_seconds=$((boot_seconds + SECONDS - start))
    ((status == 0)) || fail "boot $boots: QEMU exited with $status" "$(tail -5 "$log" | tr '\r\n' '  ')"
}
# booted DESCRIPTION SLOT: the boot started SLOT's kernel with SLOT's root.
booted() {
    local partition=2
    [[ $2 == B ]] && partition=3
    if grep -q "playola stand-in kernel: slot $2" "$log" &&
        grep -q "playola: booting slot $2: .*root=PARTUUID=706c6179-0$partition .*rauc.slot=$2" "$log"; then
        pass "$1"
    else
        fail "$1" "$(grep -a 'playola' "$log" | tr '\r\n' '  ')"
    fi
}
said() { # said DESCRIPTION TEXT: the boot's console says TEXT
    if grep -q -- "$2" "$log"; then pass "$1"; else fail "$1" "$(grep -a 'playola' "$log" | tr '\r\n' '  ')"; fi
}
# reset_unbooted DESCRIPTION TEXT: the console says TEXT, and U-Boot reset without starting a kernel.
reset_unbooted() {
    if grep -q -- "$2" "$log" && ! grep -q "stand-in kernel" "$log"; then pass "$1"; else
        fail "$1" "$(grep -a 'playola' "$log" | tr '\r\n' '  ')"; fi
}
echo "$work/boot-state.env 0x0000 0x4000" >"$work/fw_env.config"
state_out() { mcopy -n -i "$card@@1M" ::boot-state.env "$work/boot-state.env"; }
# state DESCRIPTION WANT: the state file as fw_printenv reads it, one line.
state() {
    state_out || { fail "$1" "no boot-state.env on the FAT partition"; return; }
    same "$1" "$(fw_printenv -c "$work/fw_env.config" BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT 2>&1 | tr '\n' ' ')" "$2"
}
damage() { # damage FILE: one byte of the named file on the card changed
    mcopy -n -i "$card@@1M" "::$1" "$work/damaged" &&
        printf 'X' | dd of="$work/damaged" bs=1 seek=10 conv=notrunc status=none &&
        mcopy -o -i "$card@@1M" "$work/damaged" "::$1"
}
# set_state NAME VALUE...: what RAUC's U-Boot backend does, through fw_setenv.
set_state() {
    state_out
    while (($#)); do fw_setenv -c "$work/fw_env.config" "$1" "$2" || fail "fw_setenv $1 $2"; shift 2; done
    mcopy -o -i "$card@@1M" "$work/boot-state.env" ::boot-state.env
}

boot
booted "first boot: no state yet, slot A" A
if grep -q 'playola: booting slot A: console=ttyS1,115200 console=tty0 root=' "$log" && ! grep -q 'init=/bin/sh' "$log"; then
    pass "bootargs.txt on a product image's FAT has no effect (init=/bin/sh is not on the command line)"
else
    fail "bootargs.txt on a product image's FAT has no effect" "$(grep -a 'booting slot' "$log" | tr '\r\n' '  ')"
fi
state "A's tries counted down before its kernel started" "BOOT_ORDER=A B BOOT_A_LEFT=2 BOOT_B_LEFT=3 "
boot
boot
booted "third boot (A never marked good): A again" A
state "A has no tries left" "BOOT_ORDER=A B BOOT_A_LEFT=0 BOOT_B_LEFT=3 "
boot
booted "A's tries spent: B" B
state "B's tries counted down, A's stay spent" "BOOT_ORDER=A B BOOT_A_LEFT=0 BOOT_B_LEFT=2 "

# RAUC in the running system, its U-Boot backend on this card's state file (fw_printenv and fw_setenv with
# the test's fw_env.config): B came up healthy and is marked good; then an install into A makes A primary.
mkdir -p "$work/bin" "$work/rauc-data"
for tool in fw_printenv fw_setenv; do
    printf '#!/bin/sh\nexec %s -c "%s" "$@"\n' "$(command -v $tool)" "$work/fw_env.config" >"$work/bin/$tool"
    chmod +x "$work/bin/$tool"
done
truncate -s 1M "$work/slot-a" "$work/slot-b"
cat >"$work/system.conf" <<CONF
[system]
compatible=playola-rpi
bootloader=uboot
data-directory=$work/rauc-data
$(file_slots "$work")
CONF
# rauc_marks DESCRIPTION rauc status ARGS...: RAUC changes the state file on the card.
rauc_marks() {
    local description=$1
    shift
    state_out
    if "$@" >"$work/rauc.log" 2>&1; then pass "$description"; else fail "$description" "$(tr '\n' ' ' <"$work/rauc.log")"; fi
    mcopy -o -i "$card@@1M" "$work/boot-state.env" ::boot-state.env
}
start_rauc_service "$work" "$work/system.conf" B "$work/bin" || fail "the test's RAUC service starts"
rauc_marks "rauc status mark-good: B is good" rauc status mark-good rootfs.1
state "B has its tries back" "BOOT_ORDER=A B BOOT_A_LEFT=0 BOOT_B_LEFT=3 "
rauc_marks "rauc status mark-active: A is the slot to boot (as after an install into A)" rauc status mark-active rootfs.0
state "A first, with 3 tries" "BOOT_ORDER=A B BOOT_A_LEFT=3 BOOT_B_LEFT=3 "
boot
booted "the slot RAUC made primary boots" A
state "and has a try counted" "BOOT_ORDER=A B BOOT_A_LEFT=2 BOOT_B_LEFT=3 "
rauc_marks "A is marked good" rauc status mark-good rootfs.0

# An install into B whose kernel does not load: each boot spends one of B's tries and resets; then A.
place "$work/b-no-kernel.ext4" 11
rauc_marks "the broken B is made primary" rauc status mark-active rootfs.1
stop_rauc_service
state "B first, with 3 tries" "BOOT_ORDER=B A BOOT_A_LEFT=3 BOOT_B_LEFT=3 "
for try in 1 2 3; do
    boot
    reset_unbooted "B without a kernel, try $try: U-Boot says so and resets" "playola: slot B did not start"
done
state "B's tries are spent" "BOOT_ORDER=B A BOOT_A_LEFT=3 BOOT_B_LEFT=0 "
boot
booted "the boot after: A, next in the order" A
state "A's try counted" "BOOT_ORDER=B A BOOT_A_LEFT=2 BOOT_B_LEFT=0 "
place "$work/b.ext4" 11

# Neither slot has tries left: both get 3 again and U-Boot resets; the boot after takes the order's first.
set_state BOOT_A_LEFT 0
boot
reset_unbooted "no tries left anywhere: U-Boot gives both 3 and resets, booting nothing" \
    "playola: no slot has tries left: both get 3 again"
state "both slots have 3 tries" "BOOT_ORDER=B A BOOT_A_LEFT=3 BOOT_B_LEFT=3 "
boot
booted "the boot after: B, first in the order" B

# An order that names no slot would boot nothing, reset after reset: it becomes "A B".
set_state BOOT_ORDER "C"
boot
said "an order of no slot is said" "playola: BOOT_ORDER=C names no order of A and B: A B"
booted "and A is booted" A
state "the order is A B again" "BOOT_ORDER=A B BOOT_A_LEFT=2 BOOT_B_LEFT=2 "

# A damaged state file (a power cut while it was written): its CRC fails and U-Boot's copy is read.
damage boot-state.env
boot
said "a damaged state file is said, and its copy read" \
    "playola: boot-state.env damaged or missing: boot state from boot-state.bak: BOOT_ORDER=A B BOOT_A_LEFT=2 BOOT_B_LEFT=2"
booted "the selection goes on: A" A
state "from the copy's counts" "BOOT_ORDER=A B BOOT_A_LEFT=1 BOOT_B_LEFT=2 "
# Both damaged: the selection starts over.
damage boot-state.env
damage boot-state.bak
boot
said "both damaged: said" "playola: no valid boot-state.env or boot-state.bak: starting over"
booted "and the selection starts over at A" A
state "with fresh counts" "BOOT_ORDER=A B BOOT_A_LEFT=2 BOOT_B_LEFT=3 "

echo "$boots boots of U-Boot under QEMU in $boot_seconds s"
finish
