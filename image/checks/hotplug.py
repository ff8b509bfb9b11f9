"""hotplug: QMP device_del of the card during playback, device_add 5 s later: audio within 2 s of udev's add, live.

The new card plays into a new wav audiodev (cap1.wav): audio within 2 s (arm64: 4 s) of the card's udev add
(reported on ttyS1, timestamped on the host), at the live position; at most a few journal lines during the
outage; NRestarts=0. The checks after it in boot 1 hear the card on cap1.wav."""
import time

from testlib import target
from testlib.audio import POSITION_TOLERANCE, loop_diff
from testlib.guest_timing import position_at, resumed_position
from testlib.log import fmt, log, stamp

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_hotplug(t.machine, t.check)


def check_hotplug(machine, check):
    """Unplug during playback, plug in a new card 5 s later (onto wav1): back within 2 s of udev's add, live."""
    cap0, cap1 = machine.capture(0), machine.capture(1)
    machine.wait_for_position(4, 16)
    lines_before = machine.journal_lines()
    unplugged = stamp()
    at_unplug = position_at(machine, cap0, unplugged - 0.1)
    machine.qmp.execute("device_del", id="snd0")
    removed, _ = machine.events.wait(r"udev remove card", unplugged, 5)
    lost = machine.wait_status(lambda s: s.get("state") == "paused", timeout=4)
    time.sleep(max(0, unplugged + 5 - stamp()))
    lines_at_plug = machine.journal_lines()
    plugged = stamp()
    machine.qmp.execute("device_add", driver="usb-audio", id="snd1", audiodev="wav1")
    machine.card = 1
    added, _ = machine.events.wait(r"udev add card", plugged, 10)
    at, offset = cap1.first_sound(plugged, timeout=15)
    latency = at - added if at is not None and added is not None else None
    after, expected, how = resumed_position(machine, cap1, plugged, offset) if offset else (None, None, "")
    error = loop_diff(after, expected) if after is not None else None
    advanced = loop_diff(after, at_unplug) if after is not None and at_unplug is not None else None
    machine.wait_status(lambda s: s.get("state") == "playing", timeout=3)
    journal = machine.agent.out("journalctl -b -u playola -o cat --no-pager").splitlines()
    outage, comeback = journal[lines_before:lines_at_plug], journal[lines_at_plug:]
    restarts = machine.agent.out("systemctl show -p NRestarts --value playola")
    log(f"card removed (udev) {fmt(removed - unplugged if removed else None)} after device_del; "
        f"status then: {lost.get('state')}({lost.get('reason')}); udev add {fmt(added - plugged if added else None)} after device_add")
    log("playola's journal while the card was away:\n    " + "\n    ".join(outage or ["(none)"]))
    log("and from its return:\n    " + "\n    ".join(comeback or ["(none)"]))
    # The same lines on the guest's monotonic clock, beside the kernel's and udev's for the new card: which of
    # the service's attempts came when, against the card's arrival.
    stamped = machine.agent.out(f"journalctl -b -u playola -o short-monotonic --no-pager | tail -n +{lines_at_plug + 1}; "
                                "journalctl -b -k -o short-monotonic --no-pager | grep -iE 'usb|snd|audio' | tail -n 8")
    log("the return on the guest's monotonic clock (the service, then the kernel):\n    " + "\n    ".join(stamped.splitlines() or ["(none)"]))
    limit = target.spec()["hotplug_latency"]
    check(f"hotplug: resumed within {limit:.0f} s of the card's udev add", latency is not None and latency <= limit,
          f"first audio {fmt(latency)} after udev add")
    check("hotplug: at the live position", error is not None and abs(error) <= POSITION_TOLERANCE and advanced is not None
          and advanced > 4, f"loop {fmt(at_unplug)} at the unplug, {fmt(after)} after the return "
          f"(wall clock says {fmt(expected)}, error {fmt(error, '+.2f')}; {fmt(advanced, '+.2f')} later in the loop){how}")
    check("hotplug: no error storm, no restart", len(outage) <= 5 and restarts == "0",
          f"{len(outage)} journal lines in the 5 s outage, NRestarts={restarts}")
