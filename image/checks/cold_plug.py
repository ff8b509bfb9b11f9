"""card plugged in after boot: booted without the card, the service waits, and plays once one is plugged in."""
from testlib.audio import CROSSFADE, CYCLE, POSITION_TOLERANCE, SWEEP_START, loop_diff, pitch, sweep_position
from testlib.log import fmt, stamp

BOOT = "2"


def run(t):
    check_cold_plug(t.machine, t.check)


def check_cold_plug(machine, check):
    """Booted without a card: the service waits, and plays once one is plugged in."""
    status = machine.wait_status(lambda s: s.get("deviceAvailable") is False and s.get("state") != "error", timeout=3)
    waiting = f"{status.get('state')}, deviceAvailable={status.get('deviceAvailable')}"
    cap1 = machine.capture(1)
    plugged = stamp()
    machine.qmp.execute("device_add", driver="usb-audio", id="snd1", audiodev="wav1")
    machine.card = 1
    added, _ = machine.events.wait(r"udev add card", plugged, 10)
    at, offset = cap1.first_sound(plugged, timeout=20)
    frequency = pitch(cap1.window_after(offset)) if offset else None
    latency = at - added if at is not None and added is not None else None
    expected = machine.expected_position(cap1.time_of(offset + int(0.4 * cap1.rate) * cap1.frame)) if offset else None
    # Only where the loop is not in its crossfade does the pitch give a position.
    error = loop_diff(sweep_position(frequency), expected) if frequency and CROSSFADE + 0.5 < expected < CYCLE - 0.5 else None
    check("card plugged in after boot: playback starts", latency is not None and SWEEP_START <= (frequency or 0) <= 1200
          and (error is None or abs(error) <= POSITION_TOLERANCE),
          f"before: {waiting}; udev add {fmt(added - plugged if added else None)} after device_add, "
          f"first audio {fmt(latency)} after udev add, {fmt(frequency, '.0f', ' Hz')} "
          f"(loop {fmt(sweep_position(frequency))}, wall clock says {fmt(expected)}: error "
          f"{fmt(error, '+.2f') if error is not None else 'not measured, in the crossfade'})")
