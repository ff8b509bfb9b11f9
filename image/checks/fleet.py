"""fleet: [fleet] in the FAT playola.ini, a mosquitto on the host through a QEMU forward; the box shows there,
and a group `next` changes the captured tone."""
import base64, os, subprocess, tempfile, time

from testlib.audio import TONE, pitch
from testlib.log import fmt, stamp

BOOT = "1"
AFTER = ("boot-to-play",)
# The guest's address for the host's broker (image/boot's BROKER_PORT forward).
BROKER = "10.0.2.101:1883"


def run(t):
    check_fleet(t.machine, t.check)


def check_fleet(machine, check):
    with tempfile.TemporaryDirectory() as folder:
        conf = os.path.join(folder, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write(f"listener {machine.broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        broker = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _check_fleet(machine, check)
        finally:
            broker.terminate()
            broker.wait()


def _mqtt(tool, port, *words, timeout=100):
    """A mosquitto client's output; "" when it timed out."""
    try:
        done = subprocess.run([tool, "-h", "127.0.0.1", "-p", str(port), *words], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ""
    return done.stdout.strip()


def _check_fleet(machine, check):
    agent, port = machine.agent, machine.broker_port
    capture = machine.capture(machine.card)
    agent.run("playola play sweep")
    machine.wait_status(lambda s: s.get("station") == "sweep" and s.get("state") == "playing", timeout=20)
    section = f"\n[fleet]\nbroker = mqtt://{BROKER}\ngroup = lobby\n"
    code, _, err = agent.run(
        "cp /boot/firmware/playola.ini /run/playola.ini.saved && mount -o remount,rw /boot/firmware && "
        f"echo {base64.b64encode(section.encode()).decode()} | base64 -d >>/boot/firmware/playola.ini && "
        "mount -o remount,ro /boot/firmware && systemctl reload playola", timeout=60)
    reloaded = stamp()
    # Retained: read after the box published them, they are still there.
    status = _mqtt("mosquitto_sub", port, "-t", "playola/+/status", "-C", "1", "-W", "90", "-v")
    shown = stamp() - reloaded if status else None
    online = _mqtt("mosquitto_sub", port, "-t", "playola/+/online", "-C", "1", "-W", "10", "-v")
    device = status.split(" ", 1)[0].split("/")[1] if status else None
    _mqtt("mosquitto_pub", port, "-t", "playola/group/lobby/cmd", "-m", '{"next":{}}')
    asked = stamp()
    changed = machine.wait_status(lambda s: s.get("station") == "tone" and s.get("state") == "playing", timeout=20)
    frequency = pitch(capture.window(max(stamp(), asked + 2.0)))
    link = machine.wait_status(lambda s: (s.get("fleet") or {}).get("connected"), timeout=1).get("fleet")
    said = machine.agent.out("journalctl -b -u playola -o cat --no-pager | grep -i fleet | tail -n 3")
    agent.run("mount -o remount,rw /boot/firmware && cp /run/playola.ini.saved /boot/firmware/playola.ini && "
              "mount -o remount,ro /boot/firmware && systemctl reload playola", timeout=60)
    check("fleet: the box shows on the broker and a group next changes the tone",
          code == 0 and device is not None and online.endswith(" true") and changed.get("station") == "tone"
          and frequency is not None and abs(frequency - TONE) < 20,
          f"{'INI edited' if code == 0 else err.strip()}; retained status of {device} read {fmt(shown)} after the reload, "
          f"online {online.split(' ')[-1] if online else 'NONE'}; link {link}; group next: {changed.get('station')} "
          f"{changed.get('state')}, captured {fmt(frequency, '.0f', ' Hz')}; journal: {' | '.join(said.splitlines())}")
