"""the box's name: playola- and its MAC's last four hex digits; with [remote] on the LAN, mDNS answers it and advertises MPD.

The test INI gives no [network] hostname, so the box takes its board's: QEMU's NIC has the MAC 52:54:00:12:34:56,
so playola-3456 (a second box on the network would have its own). The INI's [remote] listens on the LAN, so
avahi-daemon runs: it resolves playola-3456.local to the box's address and lists _mpd._tcp on port 6600. (The
power cuts' boots, without [remote], find avahi-daemon not running and nothing on mDNS's port.)"""
BOOT = "1"
AFTER = ("boot-to-play",)

NAME = "playola-3456"   # QEMU's default MAC, 52:54:00:12:34:56


def run(t):
    machine, check = t.machine, t.check
    name = machine.agent.out("uname -n").strip()
    check("the box's name: playola- and its MAC's last four hex digits", name == NAME, f"uname -n: {name!r}, expected {NAME!r}")
    resolved = machine.agent.out(f"timeout 20 avahi-resolve -4 -n {NAME}.local", timeout=40).split()
    address = machine.agent.out("ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1").split()
    check("mDNS: NAME.local resolves to the box's address", len(resolved) == 2 and resolved[1] in address,
          f"avahi-resolve: {resolved or 'nothing'}; the box's addresses: {address}")
    browsed = machine.agent.out("timeout 20 avahi-browse -rtpk _mpd._tcp", timeout=40)
    found = [line.split(";") for line in browsed.splitlines() if line.startswith("=") and ";IPv4;" in line]
    check("mDNS: MPD's protocol advertised as _mpd._tcp on port 6600 of NAME.local",
          any(fields[6] == f"{NAME}.local" and fields[8] == "6600" for fields in found if len(fields) > 8),
          f"avahi-browse: {browsed.strip() or 'nothing'}")
