"""the box's name: playola- and its MAC's last four hex digits; with [remote] on the LAN, mDNS answers it and advertises MPD.

The test INI gives no [network] hostname, so the box takes its board's: the last four hex digits of the device
tree's serial number, else of its first interface's MAC. QEMU's NIC has the MAC 52:54:00:12:34:56, so on q35 and
virt playola-3456. On raspi3b the usb-net NIC is at times taken by cdc_subset, which gives it a random MAC, when
cdc_ether's probe failed (EBUSY) on a slow boot (e2e run 29): the expected name is read off the guest's own
serial number and interfaces, and must be QEMU's MAC's when the NIC has that MAC. The INI's
[remote] listens on the LAN, so avahi-daemon runs: it resolves NAME.local to the box's address and lists
_mpd._tcp on port 6600. (The power cuts' boots, without [remote], find avahi-daemon not running and nothing on
mDNS's port.)"""
BOOT = "1"
AFTER = ("boot-to-play",)

QEMU_NAME = "playola-3456"   # QEMU's NIC's MAC, 52:54:00:12:34:56


def expected_name(machine):
    """The name the box's kernel says it should have: the serial number's last four hex digits, else the MAC's
    of its first interface by name whose address is not all zeros (the loopback's is)."""
    out = machine.agent.out("echo \"serial $(tr -d '\\0' </proc/device-tree/serial-number 2>/dev/null)\"; "
                            "for i in /sys/class/net/*; do echo \"${i##*/} $(cat $i/address)\"; done")
    lines = out.split("\n")
    hex_digits = lambda text: "".join(c for c in text.lower() if c in "0123456789abcdef")
    serial_line = lines[0].partition("serial")[2].strip() if lines and lines[0].startswith("serial") else ""
    serial = hex_digits(serial_line)
    if len(serial) >= 4 and serial.strip("0"):
        return f"playola-{serial[-4:]}", f"serial number {serial_line}"
    for line in sorted(lines[1:]):
        interface, _, address = line.partition(" ")
        digits = hex_digits(address)
        if len(digits) == 12 and digits.strip("0"):
            return f"playola-{digits[-4:]}", f"{interface}'s MAC {address}"
    return "playola", "no serial number, no MAC"


def run(t):
    machine, check = t.machine, t.check
    name = machine.agent.out("uname -n").strip()
    NAME, source = expected_name(machine)
    # Where the NIC keeps QEMU's MAC, the name is that MAC's.
    qemu_mac = "52:54:00:12:34:56" in source
    check("the box's name: playola- and its MAC's last four hex digits", name == NAME and (NAME == QEMU_NAME or not qemu_mac),
          f"uname -n: {name!r}, expected {NAME!r} (from {source})")
    resolved = machine.agent.out(f"timeout 20 avahi-resolve -4 -n {NAME}.local", timeout=40).split()
    address = machine.agent.out("ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1").split()
    check("mDNS: NAME.local resolves to the box's address", len(resolved) == 2 and resolved[1] in address,
          f"avahi-resolve: {resolved or 'nothing'}; the box's addresses: {address}")
    browsed = machine.agent.out("timeout 20 avahi-browse -rtpk _mpd._tcp", timeout=40)
    found = [line.split(";") for line in browsed.splitlines() if line.startswith("=") and ";IPv4;" in line]
    check("mDNS: MPD's protocol advertised as _mpd._tcp on port 6600 of NAME.local",
          any(fields[6] == f"{NAME}.local" and fields[8] == "6600" for fields in found if len(fields) > 8),
          f"avahi-browse: {browsed.strip() or 'nothing'}")
