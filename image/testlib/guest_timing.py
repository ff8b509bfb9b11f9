"""When the emulated DAC does not keep time: the moment read from the engine's own journal lines, the capture
kept for what played.

QEMU's Raspberry Pi 3B (7.2 and 10.0 alike) completes the USB DAC's isochronous transfers behind its dwc2 model
faster than real time: the guest's ALSA pointer runs at 2-3 times 48 kHz (`dac_rate`, checked at boot to play),
the engine plays a 15 s spin in 7-9 s of the guest's clock and then waits for the next airtime, and the capture
holds pieces of the audio, each up to 15 Hz off its tone, with the rest dropped (bench/RESULTS.md, e2e runs
23-25). There a capture's position cannot be set against the host's clock. The checks then take the moment from
the line the engine logs when it joins a position or starts a spin (its journal time, moved onto the host's
clock by the measured guest-host offset), and the capture for what was heard: sound after a spin's start, and
after a resume the sweep a little past the position the join line names."""
import re, time

from . import target
from .audio import POSITION_TOLERANCE, block_pitch, loop_diff, pitch, sweep_position, tone_change
from .fakeapi import PLAYOLA_TOLERANCE
from .log import fmt, stamp, wall0

# The journal's line for a join: `<airtime> join  <id> "<title>" — at 8.256 s into the file`.
JOIN = re.compile(r"\bjoin\s+\S+ .* at ([0-9.]+) s into the file")


def dac_keeps_time():
    """False on a machine whose emulated USB DAC is known to run fast (target's dac_keeps_time)."""
    return target.spec().get("dac_keeps_time", True)


def dac_rate(machine, seconds=5.0):
    """(the rate the USB card was opened at, the frames a second its driver says it played over `seconds` of the
    guest's monotonic clock: its hw_ptr in /proc/asound, which the engine's output follows); None for what
    cannot be read (the card not playing)."""
    pcm = "/proc/asound/Audio/pcm0p/sub0"
    out = machine.agent.out(f"p() {{ sed -n 's/^hw_ptr *: //p' {pcm}/status; cut -d' ' -f1 /proc/uptime; }}; "
                            f"sed -n 's/^rate: \\([0-9]*\\).*/\\1/p' {pcm}/hw_params; p; sleep {seconds}; p")
    try:
        rate, ptr0, up0, ptr1, up1 = (float(value) for value in out.split())
    except ValueError:
        return None, None
    return rate, ((ptr1 - ptr0) / (up1 - up0) if up1 > up0 else None)


def journal_since(machine, at):
    """playola's journal lines logged from host time `at` (a stamp) on: [(host stamp, message)]. The guest's
    wall clock is moved onto the host's by machine.clock_offset (measure_clock)."""
    guest_since = wall0 + at + machine.clock_offset
    out = machine.agent.out(f"journalctl -b -u playola -o short-unix --no-pager --since @{guest_since - 1:.0f}")
    lines = []
    for line in out.splitlines():
        when, _, rest = line.partition(" ")
        try:
            stamp_at = float(when) - machine.clock_offset - wall0
        except ValueError:
            continue
        if stamp_at >= at:
            lines.append((stamp_at, rest.split(": ", 1)[-1]))
    return lines


def first_line(machine, at, pattern, timeout=15.0):
    """(host stamp, match) of playola's first journal line from `at` on that matches `pattern`, waiting up to
    `timeout` s for it to be logged, or (None, None)."""
    deadline = time.monotonic() + timeout
    while True:
        for when, message in journal_since(machine, at):
            found = re.search(pattern, message)
            if found:
                return when, found
        if time.monotonic() > deadline:
            return None, None
        time.sleep(1)


def joined(machine, at):
    """(host stamp, seconds into the sweep's loop) of the engine's first join from `at` on, or (None, None).
    The sweep station's files start on the loop's 30 s boundaries, so a position into the file (under 30 s)
    is the loop's."""
    when, found = first_line(machine, at, JOIN)
    return (when, float(found.group(1))) if found else (None, None)


def heard_position(capture, offset):
    """The sweep's loop position heard in the 0.3 s from a byte offset (`block_pitch`: the dropped pieces make
    single blocks jump by tens of Hz)."""
    heard = block_pitch(capture.samples(offset, offset + int(0.3 * capture.rate) * capture.frame), capture.rate)
    return sweep_position(heard)


def median_pitch(capture, start, end):
    """The median pitch of the blocks of sound between host times start and end, or None."""
    return block_pitch(capture.samples(capture.offset_at(start), capture.offset_at(end)), capture.rate)


def resumed_position(machine, capture, since, offset):
    """(the loop position the audio came back at, the wall clock's position then, what to add to the check's
    detail) after a pause or an outage that ended after host time `since`, its first sound at byte `offset`.
    Where the DAC keeps time, both from the capture; where not, the engine's join line and the wall clock at
    that line, the join's position taken only if it is what was heard."""
    if dac_keeps_time():
        after = sweep_position(pitch(capture.window_after(offset)))
        return after, machine.expected_position(capture.time_of(offset + int(0.4 * capture.rate) * capture.frame)), ""
    when, position = joined(machine, since)
    heard = heard_position(capture, offset)
    # What QEMU's USB audio queue holds when the engine resumes plays first, while the guest's fast stream
    # overflows it: what is heard first lies up to 3 s on (measured 1.9 s), never before the join.
    ahead = loop_diff(heard, position) if heard is not None and position is not None else None
    agrees = ahead is not None and -POSITION_TOLERANCE <= ahead <= 3.0
    expected = machine.expected_position(when) if when is not None else None
    return (position if agrees else None), expected, (f" [the join line's position; heard {fmt(ahead, '+.2f')} on: "
                                                      "this DAC runs fast]")


def position_at(machine, capture, at):
    """The loop position playing at host time `at`: the capture's where the DAC keeps time, else the wall clock's
    (the capture may hold a dropped piece there)."""
    if dac_keeps_time():
        return sweep_position(pitch(capture.window(at)))
    return machine.expected_position(at)


def spin_tolerance():
    """How far from its airtime a spin change may come: the fake API's tolerance, and where the DAC runs fast 1.5 s
    more, as the engine's start line comes early there: its render runs ahead of the airtime on the racing
    device clock until the next spin's start holds it back (-0.87 to -1.92 s in e2e runs 27 and 29)."""
    return PLAYOLA_TOLERANCE if dac_keeps_time() else PLAYOLA_TOLERANCE + 1.5


def spin_change(machine, api, capture, k, boundary):
    """(seconds from spin k's scheduled start to its being heard, seconds of neither tone before it, what to add to
    the check's detail), boundary being the host time of k's airtime; waits until 3 s past it. Where the DAC keeps
    time, the capture's tone change; where not, the engine's start line for spin k, and the capture's two tones
    heard in order around it."""
    while stamp() < boundary + 4:
        time.sleep(0.1)
    if dac_keeps_time():
        at, _, gap = tone_change(capture, boundary - 2.5, boundary + 2.5, api.frequency(k - 1), api.frequency(k))
        return (at - boundary if at is not None else None), gap, ""
    when, _ = first_line(machine, boundary - 5, rf"\bstart\s+spin-{k}\b")
    # The pieces the capture keeps come out up to 15 Hz off their tone, and the spins' tones are 30 Hz apart:
    # what was heard is shown, the spin is named by the engine's line.
    after = median_pitch(capture, boundary, boundary + 4)
    error = when - boundary if when is not None and after is not None else None
    return error, None, (f" [the start line's time, {fmt(after, '.0f', ' Hz')} heard after it against "
                         f"{api.frequency(k):.0f}: this DAC runs fast]")
