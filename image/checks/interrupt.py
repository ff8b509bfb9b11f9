"""button: interrupt and resume: silence, then the live position (gpio-sim lines pressed from the guest's shell)."""
import time

from testlib.audio import POSITION_TOLERANCE, loop_diff, went_silent
from testlib.guest_timing import position_at, resumed_position
from testlib.log import fmt, stamp

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_interrupt(t.machine, t.check)


def check_interrupt(machine, check):
    cap0 = machine.capture(0)
    # Pressed with the loop at 4-18 s, the resume lands on the same file (3.5 s later), away from the crossfade.
    machine.wait_for_position(4, 18)
    pressed = machine.press("interrupt")
    before = position_at(machine, cap0, pressed - 0.3)
    paused = machine.wait_status(lambda s: s.get("state") == "paused")
    silent = went_silent(cap0, pressed - 0.5, pressed + 3.0)
    quiet = silent - pressed if silent is not None else None
    time.sleep(max(0, pressed + 3.5 - stamp()))
    resumed = machine.press("interrupt")
    at, offset = cap0.first_sound(resumed - 0.5, timeout=5)
    playing = machine.wait_status(lambda s: s.get("state") == "playing")
    after, expected, how = resumed_position(machine, cap0, resumed - 0.5, offset) if offset else (None, None, "")
    error = loop_diff(after, expected) if after is not None else None
    jump = loop_diff(after, before) if after is not None and before is not None else None
    check("button: interrupt and resume",
          paused.get("state") == "paused" and quiet is not None and quiet <= 1.5 and playing.get("state") == "playing"
          and error is not None and abs(error) <= POSITION_TOLERANCE and jump is not None and jump > 2.5,
          f"status {paused.get('state')}({paused.get('reason')}) then {playing.get('state')}; "
          f"silent {fmt(quiet, '+.2f')} from the press's end until the next press; "
          f"resumed {fmt(at - resumed if at else None)} after the press at loop {fmt(after)} "
          f"(wall clock says {fmt(expected)}, error {fmt(error, '+.2f')}; {fmt(jump, '+.2f')} past the pause point){how}")
