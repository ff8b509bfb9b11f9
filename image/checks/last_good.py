"""network: a last-good.ini planted where the service keeps it is never applied by root (issue 25)."""
import base64

from testlib.target import PERSISTENT, WIFI_SSID

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_planted_last_good(t.machine, t.check)


def check_planted_last_good(machine, check):
    """Issue 25: root never applies a file the service can write. A last-good.ini planted where the service
    keeps it (with wpa_supplicant syntax in its values) and a boot INI with an error: the Wi-Fi file comes
    from root's own copy, kept at this boot, and the journal says so."""
    agent = machine.agent
    kept = f"{PERSISTENT}/network/playola.ini"
    modes = agent.out(f"stat -c '%a %U' {PERSISTENT}/network {kept}").splitlines()
    # The values hold wpa_supplicant syntax as text, and '\\012' escapes, which dash's echo turned into lines.
    planted = ("[network]\nwifi_ssid = open\nwifi_country = G\\012}\\012network={\\012ssid=\"evil\"\\012key_mgmt=NONE"
               "\\012priority=99\\012}\\012ctrl_interface=/run/x GROUP=playola\\012country=GB\n")
    b64 = lambda text: base64.b64encode(text.encode()).decode()
    code, _, err = agent.run(
        "cp -p /var/lib/playola/last-good.ini /run/last-good.saved && "
        f"echo {b64(planted)} | base64 -d | runuser -u playola -- tee /var/lib/playola/last-good.ini >/dev/null && "
        "cp /boot/firmware/playola.ini /run/playola.ini.saved && mount -o remount,rw /boot/firmware && "
        f"echo {b64(chr(10) + 'not a setting' + chr(10))} | base64 -d >>/boot/firmware/playola.ini && "
        "mount -o remount,ro /boot/firmware && systemctl restart playola-network-config.service", timeout=60)
    conf = agent.out("cat /run/playola-wifi/wpa_supplicant.conf")
    said = agent.out("journalctl -b -u playola-network-config -o cat --no-pager | grep -v -e '^Finished ' -e '^Starting ' -e ' Consumed ' -e '^playola-network-config.service: ' -e '^name on the network: ' | tail -n 2")
    agent.run("mount -o remount,rw /boot/firmware && cp /run/playola.ini.saved /boot/firmware/playola.ini && "
              "mount -o remount,ro /boot/firmware && cp -p /run/last-good.saved /var/lib/playola/last-good.ini && "
              "systemctl restart playola-network-config.service", timeout=60)
    restored = agent.out("cat /run/playola-wifi/wpa_supplicant.conf")
    settings = lambda text: [line for line in text.splitlines() if not line.startswith("#")]
    ssid_hex = WIFI_SSID.encode().hex()
    check("network: a planted last-good.ini is never applied by root",
          code == 0 and modes == ["700 root", "600 root"] and conf.count("network={") == 1 and f"ssid={ssid_hex}" in conf
          and "GROUP" not in conf and "priority" not in conf and "evil" not in conf and kept in said
          and "/boot/firmware/playola.ini" in said and settings(restored) == settings(conf),
          f"planted: {'yes' if code == 0 else err.strip()}; root's copy {' / '.join(modes)}; the Wi-Fi file: "
          f"{conf.count('network={')} network block(s), ssid={ssid_hex[:12]}... {'present' if ssid_hex in conf else 'MISSING'}, "
          f"injection {'FOUND' if 'GROUP' in conf or 'priority' in conf else 'absent'}; journal: {' | '.join(said.splitlines())}")
