"""What the run boots and what the test image holds: the arch's boot script, disk and image directory (chosen
once, by select(), before anything boots), and the settings of the test INI and the test image's GPIO chip
that the checks look for."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What differs between the arches: the boot script, the disk it boots, image/build's options and the variant
# it records, the image's default directory (IMAGE_DIR, which the boot scripts read too).
TARGETS = {
    "amd64": dict(boot="boot", disk="image.ext4", build=["--test"], variant="amd64-test", dir="image",
                  hotplug_latency=2.0),
    # aarch64 under TCG runs the guest several times slower than x86_64 under TCG (boot 3 min against 34-104 s),
    # the udev rule's `playola audio-device` and the reopen with it: 2.7 s measured here with the host loaded.
    "arm64": dict(boot="boot-arm64", disk="playola-rpi.img", build=["--test", "--arch", "arm64"],
                  variant="arm64-test", dir="image-arm64-test", hotplug_latency=4.0),
}
# The machines an arch's image boots on besides the first (image/test --machine): the same image, booted by
# another script. raspi3b: the Pi card itself on QEMU's Raspberry Pi 3B (image/boot-raspi3b), whose dwc2 USB
# and SD host are slower than virt's virtio and xHCI.
MACHINES = {
    # Its guest agent is on a USB serial port of a board emulated with four vCPUs on this host's two cores:
    # seen silent for 56 s with the gate running beside it.
    # Its USB DAC, behind QEMU's dwc2 model, runs at about twice its rate (testlib/guest_timing): the checks that
    # time the capture against the clock take the moment from the engine's journal there.
    "raspi3b": dict(TARGETS["arm64"], boot="boot-raspi3b", hotplug_latency=8.0, agent_timeout=90.0,
                    dac_keeps_time=False),
}
ARCH = "amd64"
MACHINE = None        # None: the arch's first machine (q35, virt); else a key of MACHINES
IMAGE_DIR = None      # set by select() from the arch and the environment

# The test INI's Playola station and Wi-Fi network (image/test-files/boot/firmware/playola.ini).
STATION_ID, TOKEN = "image-test-station", "image-test-token-7f3a"
# Its [remote] password (image/checks/remote.py).
REMOTE_PASSWORD = "image-test-remote-4d1b"
WIFI_SSID, WIFI_PSK = 'Playola Test "5G"', "test passphrase;not a comment"
# The lines of image/test-files/usr/local/sbin/playola-gpio-sim, by offset on the simulated chip.
LINES = {"next_station": 0, "stop": 1, "interrupt": 2, "shutdown": 3, "led": 4}
PERSISTENT = "/var/lib/persistent"   # image/read-only-root: the one writable persistent partition
PERSISTENT_BINDS = {PERSISTENT, "/var/lib/playola", "/var/lib/systemd", "/var/log/journal"}


def select(arch, machine=None):
    """The arch to test and the machine to boot it on, and its image directory: IMAGE_DIR from the environment,
    or build/<the arch's dir>."""
    global ARCH, MACHINE, IMAGE_DIR
    ARCH, MACHINE = arch, machine
    IMAGE_DIR = os.path.abspath(os.environ.get("IMAGE_DIR", os.path.join(ROOT, "build", spec()["dir"])))


def spec():
    """The chosen arch's entry of TARGETS, or its machine's of MACHINES."""
    return MACHINES[MACHINE] if MACHINE else TARGETS[ARCH]
