"""the image: nothing listens on the network but what the test INI's [remote] asks for, root is locked, timesyncd runs, Ethernet got its address by DHCP."""
import re

from testlib.log import fmt

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_image(t.machine, t.check)


def check_image(machine, check):
    """What a Pi owner's image promises, on the booted test image."""
    agent = machine.agent
    # Listening sockets: only loopback (resolved's stub on 127.0.0.53/54). The DHCP client's socket on its
    # leased address's port 68 is one exception, named: it takes only the server's answers to its renewals.
    # The others are what the test INI's [remote] listen = lan asks for, and nothing else: MPD's protocol
    # (playola on port 6600) and mDNS (avahi-daemon's sockets). Without [remote] the power cuts' boots find
    # neither.
    listeners = [line.split() for line in agent.out("ss -Htulnp").splitlines() if line.strip()]
    def loopback(address):
        host = address.rsplit(":", 1)[0].strip("[]").split("%")[0]
        return host.startswith("127.") or host == "::1"
    def process(l):
        found = re.search(r'users:\(\("([^"]+)"', " ".join(l[5:]))
        return found.group(1) if found else "?"
    dhcp = [l[4] for l in listeners if l[0] == "udp" and l[4].endswith(":68") and not loopback(l[4])]
    remote = [f"{l[0]} {l[4]} ({process(l)})" for l in listeners if not loopback(l[4])
              and ((l[0] == "tcp" and l[4].endswith(":6600") and process(l) == "playola")
                   or (l[0] == "udp" and process(l) == "avahi-daemon"))]
    exposed = [f"{l[0]} {l[4]} ({process(l)})" for l in listeners
               if not loopback(l[4]) and l[4] not in dhcp and f"{l[0]} {l[4]} ({process(l)})" not in remote]
    check("image: nothing listens on the network but what [remote] asks for", not exposed,
          f"listening: {', '.join(f'{l[0]} {l[4]}' for l in listeners) or 'nothing'}"
          + (f"; the DHCP client's {', '.join(dhcp)}" if dhcp else "")
          + (f"; [remote] listen = lan: {', '.join(remote)}" if remote else "")
          + (f"; EXPOSED: {', '.join(exposed)}" if exposed else ""))
    root = agent.out("passwd -S root").split()
    timesync = agent.out("systemctl is-enabled systemd-timesyncd; systemctl is-active systemd-timesyncd").split()
    check("image: root locked, timesyncd enabled", root[1:2] == ["L"] and timesync == ["enabled", "active"],
          f"passwd -S root: {' '.join(root[:2])}; systemd-timesyncd {' '.join(timesync)}")
    # Ethernet: the DHCP lease, by the guest's monotonic clock (seconds since its kernel started).
    lease = agent.out("journalctl -b -u systemd-networkd -o short-monotonic --no-pager | grep -m1 'DHCPv4 address'")
    online = agent.out("systemctl show -p ActiveEnterTimestampMonotonic --value network-online.target playola.service").split()
    up = float(re.search(r"\[\s*([\d.]+)\]", lease).group(1)) if lease else None
    check("network: Ethernet by DHCP", up is not None,
          f"{lease.split(': ', 1)[-1] if lease else 'no DHCPv4 lease'}; address {fmt(up, '.1f')} after the kernel started, "
          f"network-online {fmt(int(online[0]) / 1e6 if online else None, '.1f')}, playola started {fmt(int(online[1]) / 1e6 if len(online) > 1 else None, '.1f')}")
