"""boot partition INI: a broken edit from the host is refused with its line; the last good configuration plays.

On power-cuts' disks, after its boots: the last good configuration is the one those boots recorded on the
persistent partition (fresh disks have none, and the board then plays nothing)."""
import json, re

from testlib.log import fmt
from testlib.machine import Machine

BOOT = "power-cuts"
AFTER = ("power-cuts",)
ARCHES = ("amd64",)


def run(t):
    check_broken_edit(t.args, t.api, t.check, t.shared["run"], t.shared["disks"], t.shared["expected"])


def check_broken_edit(args, api, check, run, disks, expected):
    """A broken edit on the boot partition (made from the host): the service plays the last good
    configuration and names the line, in its status and its journal."""
    good = disks.read_ini()
    broken = re.sub(r"(?m)^volume = .*$", "volume = loud", good)
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if text == "volume = loud")
    disks.write_ini(broken)
    where = f"/boot/firmware/playola.ini:{line}"
    machine = Machine(run, card=True, plugs=0, timeout=int(args.boot_deadline + 300), api_port=api.port, disks=disks)
    try:
        at, _ = machine.capture(0).first_sound(machine.powered, timeout=args.audio_deadline)
        status = {}
        journal = ""
        if machine.wait_for_agent(machine.powered + args.boot_deadline):
            status = machine.wait_status(lambda s: s.get("state") == "playing", timeout=30)
            journal = machine.agent.out(f"journalctl -b -u playola -o cat --no-pager | grep -m1 -F '{where}'")
        check("boot partition INI: a broken edit is refused with its line; the last good one plays",
              at is not None and status.get("station") in expected and where in json.dumps(status) and journal != "",
              f"audio {fmt(at - machine.powered if at else None, '.1f')} after power-on, {status.get('state')} "
              f"{status.get('station')}; status names {where}: {where in json.dumps(status)}; journal: {journal or 'nothing'}")
    finally:
        machine.stop()
        disks.write_ini(good)
