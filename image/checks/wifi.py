"""network: the [network] Wi-Fi settings become a 0600 wpa_supplicant file, the passphrase nowhere else; the radio joins.

Of two simulated radios (mac80211_hwsim) one gets wpa_supplicant started on it by udev and joins the WPA2
network those settings name (an SSID with quotes, a passphrase with a ';'), which hostapd makes on the other."""
import base64, re, time

from testlib.log import fmt, stamp
from testlib.target import WIFI_PSK, WIFI_SSID

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_wifi(t.machine, t.check)


def check_wifi(machine, check):
    """The test INI's Wi-Fi settings, as far as a radio can be simulated."""
    agent = machine.agent
    # Wi-Fi: playola.ini's [network] turned into wpa_supplicant's file; the passphrase only as its derived key.
    ssid_hex = WIFI_SSID.encode().hex()
    code, conf, _ = agent.run("stat -c '%a %U' /run/playola-wifi/wpa_supplicant.conf && cat /run/playola-wifi/wpa_supplicant.conf")
    ini_mode = agent.out("stat -c '%a %U %G' /boot/firmware/playola.ini")
    # The pattern's last letter in brackets: the agent logs this command line, which must not match itself.
    secret = WIFI_PSK.split(";")[0]
    leaks = agent.out(f"{{ journalctl -b --no-pager -o cat; playola check-config /boot/firmware/playola.ini 2>&1; }} | grep -c '{secret[:-1]}[{secret[-1]}]'")
    check("network: Wi-Fi settings applied, passphrase kept secret",
          code == 0 and conf.startswith("600 root") and f"ssid={ssid_hex}" in conf and "country=GB" in conf
          and re.search(r"psk=[0-9a-f]{64}\n", conf) is not None and WIFI_PSK.split(";")[0] not in conf
          and ini_mode == "640 root playola" and leaks == "0",
          f"wpa_supplicant file {conf.splitlines()[0] if conf else 'missing'} with ssid={ssid_hex[:12]}..., "
          f"{'a 64-digit psk' if re.search(r'psk=[0-9a-f]{64}', conf) else 'NO psk'}; /boot/firmware/playola.ini {ini_mode}; "
          f"passphrase in the journal or check-config output: {leaks} times")
    # Two radios appear (mac80211_hwsim): udev starts wpa_supplicant on each with those settings.
    radios = agent.out("modprobe mac80211_hwsim radios=2 && sleep 3 && for w in /sys/class/net/*/wireless; do "
                       "basename ${w%/wireless}; done", timeout=40).split()
    radio = radios[0] if radios else ""
    state = agent.out(f"systemctl is-active playola-wifi@{radio}; wpa_cli -p /run/wpa_supplicant -s /run/wpa_supplicant -i {radio} status | "
                      "grep -E '^wpa_state='", timeout=20) if radio else ""
    check("network: a Wi-Fi interface gets wpa_supplicant", radio != "" and state.startswith("active"),
          f"interface {radio or 'none'}: playola-wifi@{radio}: {' '.join(state.split())}")
    # The second radio becomes the access point the INI names (hostapd, WPA2-PSK, in a network namespace of its
    # own, out of udev's and networkd's way), and the first must join it: the SSID with its quotes and the
    # passphrase with its ';', through the file they became.
    joined, took = "", None
    if len(radios) == 2:
        ap = radios[1]
        hostapd = (f"interface={ap}\ndriver=nl80211\nssid2={ssid_hex}\nhw_mode=g\nchannel=6\ncountry_code=GB\n"
                   f"wpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\nwpa_passphrase={WIFI_PSK}\n")
        code, _, err = agent.run(
            f"systemctl stop playola-wifi@{ap}; ip netns add ap && iw phy $(cat /sys/class/net/{ap}/phy80211/name) "
            f"set netns name ap && echo {base64.b64encode(hostapd.encode()).decode()} | base64 -d >/run/ap.conf && "
            "ip netns exec ap hostapd -B -P /run/ap.pid /run/ap.conf", timeout=30)
        started = stamp()
        while code == 0 and stamp() < started + 60:
            joined = agent.out(f"wpa_cli -p /run/wpa_supplicant -s /run/wpa_supplicant -i {radio} status", timeout=20)
            if "wpa_state=COMPLETED" in joined:
                took = stamp() - started
                break
            time.sleep(1)
        if code != 0:
            joined = f"the access point did not start: {err.strip()}"
    # wifi_country, applied by wpa_supplicant through the kernel's regulatory database.
    domain = agent.out("iw reg get | grep -m1 '^country'", timeout=20) if "wpa_state=COMPLETED" in joined else ""
    fields = dict(line.split("=", 1) for line in joined.splitlines() if "=" in line)
    # wpa_cli prints an SSID with its quotes and backslashes escaped.
    printed_ssid = WIFI_SSID.replace("\\", "\\\\").replace('"', '\\"')
    check("network: Wi-Fi joins the WPA2 network playola.ini names",
          fields.get("wpa_state") == "COMPLETED" and fields.get("ssid") == printed_ssid and fields.get("key_mgmt") == "WPA2-PSK"
          and domain.startswith("country GB"),
          f"{radio or 'no radio'}: {fields.get('wpa_state', joined[:200] or 'no status')} {fields.get('key_mgmt', '')} "
          f"to ssid {fields.get('ssid', '?')!r}, {fmt(took)} after the access point started; regulatory domain: {domain or 'none'}")
