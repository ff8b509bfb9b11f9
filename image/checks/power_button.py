"""power button: a long press on the shutdown line powers the machine off (QEMU exits, "reboot: Power down").

Last of boot 1: the machine is off after it."""
import subprocess

from testlib.log import fmt, stamp

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_power_button(t.machine, t.check)


def check_power_button(machine, check):
    pressed = machine.press("shutdown", hold=1.5, wait=False)
    try:
        machine.qemu.wait(timeout=90)
    except subprocess.TimeoutExpired:
        pass
    exited = machine.qemu.poll()
    console = machine.console(40)
    check("power button: clean power-off", exited == 0 and "reboot: Power down" in console,
          f"QEMU exited ({exited}) {fmt(stamp() - pressed if exited is not None else None)} after the press began"
          + ("" if "reboot: Power down" in console else "; no 'reboot: Power down' on the console:\n" + machine.console(10)))
