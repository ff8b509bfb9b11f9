"""buttons: next station (the sweep gives way to the 2000 Hz tone), stop and play (and the status LED's line)."""
from testlib.audio import TONE, block_pitch, went_silent
from testlib.log import fmt, stamp

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_next_and_stop(t.machine, t.check)


def check_next_and_stop(machine, check):
    cap1 = machine.capture(machine.card)   # cap1.wav after hotplug
    pressed = machine.press("next_station")
    status = machine.wait_status(lambda s: s.get("station") == "tone" and s.get("state") == "playing")
    frequency = block_pitch(cap1.window(max(stamp(), pressed + 2.0)))
    check("button: next station", status.get("station") == "tone" and frequency is not None and abs(frequency - TONE) < 20,
          f"status {status.get('state')} {status.get('station')}; captured {fmt(frequency, '.0f', ' Hz')}")

    pressed = machine.press("stop")
    stopped = machine.wait_status(lambda s: s.get("state") == "idle")
    led_stopped = machine.agent.out(f"cat {machine.sim_path('led')}/value")   # idle: off
    silent = went_silent(cap1, pressed - 0.5, pressed + 2.5)
    quiet = silent - pressed if silent is not None else None
    pressed = machine.press("stop")
    at, offset = cap1.first_sound(pressed - 0.5, timeout=8)
    playing = machine.wait_status(lambda s: s.get("state") == "playing")
    led_playing = machine.agent.out(f"cat {machine.sim_path('led')}/value")   # playing: steady on
    frequency = block_pitch(cap1.window_after(offset)) if offset else None
    check("button: stop and play", stopped.get("state") == "idle" and quiet is not None and quiet <= 1.5
          and playing.get("state") == "playing" and (led_stopped, led_playing) == ("0", "1")
          and frequency is not None and abs(frequency - TONE) < 20,
          f"status {stopped.get('state')} then {playing.get('state')}; silent {fmt(quiet, '+.2f')} from the press's end; "
          f"audio {fmt(at - pressed if at else None)} after the press, {fmt(frequency, '.0f', ' Hz')}; "
          f"status LED {led_stopped} stopped, {led_playing} playing")
