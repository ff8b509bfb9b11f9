"""the Pi itself: the card booted as an SD card on the Pi's device tree, the sound card behind the Pi's dwc2 USB, the INI's line names on the Pi's GPIO controller.

What QEMU's virt machine cannot show, shown on --machine raspi3b (image/boot-raspi3b: the card image itself
as the SD card, the board's .dtb from its FAT partition as the Pi's firmware takes it, slot A's kernel and
initrd with the command line the card's boot script makes; the boot script itself is shown on virt): the
kernel's idea of the board, from the device tree; the root (slot A or B), the FAT and the persistent partition
mounted from the SD host's card (mmcblk0), so the initrd found the SD host's driver; the USB DAC playing
(boot-to-play) from behind the BCM2837's dwc2 controller; and the Pi's own GPIO controller carrying the line
names that playola.ini's buttons and LEDs use, the test INI's and the sample's, by the names the device tree
gives them. (The buttons are pressed on gpio-sim lines of the same names, as on virt: QEMU's BCM2835 GPIO
model has no inputs a test can drive.)"""
BOOT = "1"
AFTER = ("boot-to-play",)
ARCHES = ("arm64",)
MACHINES = ("raspi3b",)

# Every line the test INI and the sample INI (etc/playola.ini) name (the sample's station button is offset 4,
# which the Pi's device tree names GPIO_GCLK).
LINE_NAMES = ("GPIO5", "GPIO6", "GPIO12", "GPIO13", "GPIO16", "GPIO17", "GPIO22", "GPIO23", "GPIO24",
              "GPIO25", "GPIO26", "GPIO27")
BOARDS = {"bcm2837-rpi-3-b.dtb": "Raspberry Pi 3 Model B", "bcm2837-rpi-zero-2-w.dtb": "Raspberry Pi Zero 2 W"}


def run(t):
    import os
    machine, check = t.machine, t.check
    agent = machine.agent
    dtb = os.environ.get("DTB", "bcm2837-rpi-3-b.dtb")
    model = agent.out("tr -d '\\0' </proc/device-tree/model")
    cmdline = agent.out("cat /proc/cmdline").split()
    check("the Pi: the kernel runs on the board's device tree, slot A's",
          model == BOARDS.get(dtb, "?") and "root=PARTUUID=706c6179-02" in cmdline and "rauc.slot=A" in cmdline,
          f"model {model!r} ({dtb}); /proc/cmdline: {' '.join(cmdline)}")
    mounts = {point: agent.out(f"findmnt -no SOURCE {point}") for point in ("/", "/boot/firmware", "/var/lib/persistent")}
    check("the Pi: root, FAT and persistent partition on the SD card (mmcblk0)",
          mounts["/"] in ("/dev/mmcblk0p2", "/dev/mmcblk0p3") and mounts["/boot/firmware"] == "/dev/mmcblk0p1"
          and mounts["/var/lib/persistent"] == "/dev/mmcblk0p4",
          ", ".join(f"{point} {source or 'not mounted'}" for point, source in mounts.items()))
    card = agent.out("readlink -f /sys/class/sound/card0/device")
    driver = agent.out("basename \"$(readlink -f /sys/bus/platform/devices/3f980000.usb/driver)\"")
    check("the Pi: the sound card behind the BCM2837's dwc2 USB controller", "3f980000.usb" in card and driver == "dwc2",
          f"card0: {card or 'none'}; 3f980000.usb's driver: {driver or 'none'}")
    chip = agent.out("gpiodetect | awk '/\\[pinctrl-bcm2835\\]/ { print $1 }'")
    names = set(agent.out(f"gpioinfo -c {chip} | grep -o '\"GPIO[0-9]*\"' | tr -d '\"'").split()) if chip else set()
    missing = [name for name in LINE_NAMES if name not in names]
    check("the Pi: its GPIO controller names the INI's lines (GPIO17...)", chip != "" and not missing,
          f"{chip or 'no pinctrl-bcm2835 chip'}: {len(names)} lines named GPIOn" + (f", missing {', '.join(missing)}" if missing else ""))
