"""network lost while playing: the cable pulled, the cached spins play on, on schedule; the cable back in, it plays on."""
import time

from testlib.audio import went_silent
from testlib.guest_timing import dac_keeps_time, spin_change, spin_tolerance
from testlib.log import fmt, stamp, wall0

BOOT = "1"
AFTER = ("boot-to-play", "playola")


def run(t):
    check_lost_network(t.machine, t.api, t.machine.capture(t.machine.card), t.check)


def check_lost_network(machine, api, capture, check):
    """The cable pulled while the Playola station plays: the spins already in the cache play on, on schedule,
    through a spin change; the cable back in, the station carries on by itself."""
    machine.qmp.execute("set_link", name="net0", up=False)
    pulled = stamp()
    k = api.spin_at(time.time() + 3) + 1
    boundary = api.airtime(k) - wall0
    error, gap, how = spin_change(machine, api, capture, k, boundary)
    # A DAC that runs fast leaves silences in the capture between spins (testlib/guest_timing): not judged there.
    silent = went_silent(capture, pulled, stamp()) if dac_keeps_time() else None
    machine.qmp.execute("set_link", name="net0", up=True)
    back = stamp()
    status = machine.wait_status(lambda s: s.get("state") == "playing" and s.get("station") == "porch", timeout=10)
    check("network lost while playing: the cached spins play on, on schedule",
          error is not None and abs(error) <= spin_tolerance() and silent is None and status.get("state") == "playing",
          f"cable out {back - pulled:.1f} s; spin {k - 1} gave way to spin {k} {fmt(error, '+.2f')} from "
          f"the schedule ({fmt(gap)} of neither tone), {'no silence' if silent is None else 'SILENT'}; "
          f"cable in: {status.get('state')} {status.get('station')}{how}")
