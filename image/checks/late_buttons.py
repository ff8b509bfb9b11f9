"""buttons whose GPIO chip comes late: root-only when the service starts, its group from udev 10 s later; the
buttons work within 2 s of that, without a restart (the gpio-sim chip, chmod'ed and re-triggered from the guest)."""
import time

from testlib.log import fmt, stamp

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_late_buttons(t.machine, t.check)


def check_late_buttons(machine, check):
    chip = machine.sim_path("stop").split("/")[-2]          # .../gpio-sim.0/gpiochip1/sim_gpio1
    # As on a loaded boot, where udev gives the chip its group after the service has started.
    machine.agent.run(f"chown root:root /dev/{chip} && chmod 600 /dev/{chip} && systemctl restart playola")
    waiting = machine.wait_status(lambda s: str(s.get("buttons", "")).startswith("waiting"), timeout=60)
    said = waiting.get("buttons")
    time.sleep(10)
    machine.agent.run(f"udevadm trigger --action=add --settle /dev/{chip}")
    accessible = stamp()
    ready = machine.wait_status(lambda s: "buttons" not in s and s.get("state") in ("playing", "loading"), timeout=10)
    took = stamp() - accessible if "buttons" not in ready else None
    pressed = machine.press("stop")
    stopped = machine.wait_status(lambda s: s.get("state") == "idle")
    machine.press("stop")
    playing = machine.wait_status(lambda s: s.get("state") == "playing", timeout=30)
    check("buttons whose chip comes late work without a restart",
          str(said).startswith("waiting") and took is not None and took <= 2 and stopped.get("state") == "idle"
          and playing.get("state") == "playing",
          f"status said {said!r}; the buttons taken {fmt(took)} after udev gave the chip its group; "
          f"stop pressed: {stopped.get('state')} {fmt(stamp() - pressed)} later, pressed again: {playing.get('state')}")
