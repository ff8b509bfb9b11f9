# U-Boot boot script of the A/B card (mkimage -A arm64 -T script -C none -d boot.cmd boot.scr): RAUC's
# boot selection. BOOT_ORDER names the slots in the order to try ("A B"), BOOT_A_LEFT and BOOT_B_LEFT the
# tries each has left. The first slot in the order with tries left is booted, its count taken down by one
# and saved before the kernel starts; the running system, once healthy, has RAUC set the count back (and
# RAUC's install puts the new slot first). A slot that fails to come up uses its tries and the next slot in
# the order is booted; with none left, both get their tries back.
#
# The state lives in its own file on the FAT partition this script is on, boot-state.env, in U-Boot's
# environment format (a CRC-32, then the variables): fw_printenv and fw_setenv read and write it as RAUC
# calls them (image/uboot/fw_env.config). Not U-Boot's own environment: the Pi's U-Boot loads that from
# uboot.env on the same partition, whole, and a file holding only these three would replace its defaults;
# and QEMU's virt board keeps it in a flash that bookworm's QEMU cannot write (saveenv: "Flash buffer write
# timeout"). U-Boot writes a copy, boot-state.bak, before the file, and reads the copy when the file is
# damaged (its CRC fails): a power cut while either is written leaves the other whole. With neither
# readable, the selection starts over at "A B", 3 and 3.
#
# The kernel and initrd are loaded from the chosen slot's root (/boot/vmlinuz, /boot/initrd.img): an update
# replaces them with the modules they belong to, and the FAT partition, which the user edits, is never
# written by an update. The device tree is the one U-Boot was given (the Pi's firmware applies config.txt's
# overlays to it; QEMU makes its own). Slot A is partition 2, B partition 3, of the card whose MBR disk
# identifier is 706c6179 (image/rauc/system.conf.in); the kernel mounts root=PARTUUID=706c6179-0N.
# devtype, devnum and distro_bootpart are set by U-Boot's distro boot, which found this script.

setenv bootstate_file boot-state.env
setenv bootstate_copy boot-state.bak
setenv bootstate_size 0x4000
setenv bootstate_part "${devtype} ${devnum}:${distro_bootpart}"

setenv BOOT_ORDER
setenv BOOT_A_LEFT
setenv BOOT_B_LEFT
setenv bootstate_import "env import -c ${pxefile_addr_r} ${bootstate_size} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT"
if load ${bootstate_part} ${pxefile_addr_r} ${bootstate_file} && run bootstate_import; then
    echo "playola: boot state: BOOT_ORDER=${BOOT_ORDER} BOOT_A_LEFT=${BOOT_A_LEFT} BOOT_B_LEFT=${BOOT_B_LEFT}"
elif load ${bootstate_part} ${pxefile_addr_r} ${bootstate_copy} && run bootstate_import; then
    echo "playola: ${bootstate_file} damaged or missing: boot state from ${bootstate_copy}: BOOT_ORDER=${BOOT_ORDER} BOOT_A_LEFT=${BOOT_A_LEFT} BOOT_B_LEFT=${BOOT_B_LEFT}"
else
    echo "playola: no valid ${bootstate_file} or ${bootstate_copy}: starting over"
fi
# RAUC writes one of the two orders; anything else would boot nothing, reset after reset.
if test "${BOOT_ORDER}" != "A B" && test "${BOOT_ORDER}" != "B A"; then
    test -z "${BOOT_ORDER}" || echo "playola: BOOT_ORDER=${BOOT_ORDER} names no order of A and B: A B"
    setenv BOOT_ORDER "A B"
fi
test -n "${BOOT_A_LEFT}" || setenv BOOT_A_LEFT 3
test -n "${BOOT_B_LEFT}" || setenv BOOT_B_LEFT 3

setenv bootslot
for slot in ${BOOT_ORDER}; do
    if test -z "${bootslot}"; then
        if test "${slot}" = A && test ${BOOT_A_LEFT} -gt 0; then
            setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
            setenv bootslot A
            setenv rootpart 2
        elif test "${slot}" = B && test ${BOOT_B_LEFT} -gt 0; then
            setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
            setenv bootslot B
            setenv rootpart 3
        fi
    fi
done

if test -z "${bootslot}"; then
    echo "playola: no slot has tries left: both get 3 again"
    setenv BOOT_A_LEFT 3
    setenv BOOT_B_LEFT 3
fi
env export -c -s ${bootstate_size} ${pxefile_addr_r} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
if fatwrite ${bootstate_part} ${pxefile_addr_r} ${bootstate_copy} ${bootstate_size} && fatwrite ${bootstate_part} ${pxefile_addr_r} ${bootstate_file} ${bootstate_size}; then
    echo "playola: saved BOOT_ORDER=${BOOT_ORDER} BOOT_A_LEFT=${BOOT_A_LEFT} BOOT_B_LEFT=${BOOT_B_LEFT}"
else
    echo "playola: could not write ${bootstate_copy} and ${bootstate_file}"
fi
test -n "${bootslot}" || reset

# The kernel's console and other arguments: the Pi's serial console. panic=10: a kernel that panics restarts
# the board, and the next boot counts that try.
setenv playola_bootargs
# test image only: bootargs.txt on this partition may set playola_bootargs (a line "playola_bootargs=...": the
# test image's names QEMU's console). image/uboot/make-boot-scr leaves these lines out of every other image:
# the FAT partition is anyone's to edit, and a kernel command line from it (init=/bin/sh) would be a way in.
if load ${bootstate_part} ${pxefile_addr_r} bootargs.txt; then
    env import -t ${pxefile_addr_r} ${filesize} playola_bootargs
fi
# end of test image only
test -n "${playola_bootargs}" || setenv playola_bootargs "console=ttyS1,115200 console=tty0"
setenv bootargs "${playola_bootargs} root=PARTUUID=706c6179-0${rootpart} rootfstype=ext4 ro rootwait panic=10 rauc.slot=${bootslot}"
echo "playola: booting slot ${bootslot}: ${bootargs}"
# A slot without a kernel it can start spends this try: the next boot goes on down the order.
# The initrd goes 96 MiB past the kernel's load address, not to the board's ramdisk_addr_r: the Pi's U-Boot
# puts that 38 MiB past kernel_addr_r, and booti moves Debian's 36 MiB arm64 Image up to the next 2 MiB
# boundary, over the initrd's first bytes ("RD image overlaps OS image", seen on QEMU's raspi3b).
setexpr playola_initrd_addr ${kernel_addr_r} + 0x6000000
if load ${devtype} ${devnum}:${rootpart} ${kernel_addr_r} /boot/vmlinuz; then
    # A gzip-compressed kernel (Debian's is not; one from the kernel tree's bindeb-pkg is) is moved here
    # by booti and unpacked to kernel_addr_r: 64 MiB past the initrd's start leaves room for this
    # project's initrd on every board.
    setenv kernel_comp_size ${filesize}
    setexpr kernel_comp_addr_r ${playola_initrd_addr} + 0x4000000
    if load ${devtype} ${devnum}:${rootpart} ${playola_initrd_addr} /boot/initrd.img; then
        booti ${kernel_addr_r} ${playola_initrd_addr}:${filesize} ${fdtcontroladdr}
    fi
fi
echo "playola: slot ${bootslot} did not start"
reset
