"""no network: booted with the cable out, the service runs and the Playola station says loading; the cable in, it plays.

The time from cable to sound is printed; the sound is the card's that cold-plug plugged in."""
import time

from testlib.audio import pitch
from testlib.fakeapi import PLAYOLA_TOLERANCE
from testlib.log import fmt, stamp

BOOT = "2"
AFTER = ("cold-plug",)


def run(t):
    check_offline_start(t.machine, t.api, t.check)


def check_offline_start(machine, api, check):
    """Booted with the cable out: the service ran anyway, the Playola station waits saying loading, and plays
    once the cable is in."""
    agent = machine.agent
    address = agent.out("ip -4 -o addr show scope global")
    started = agent.out("systemctl is-active playola; systemctl show -p ActiveEnterTimestampMonotonic --value playola").split()
    api.publish()
    agent.run("playola play porch")
    time.sleep(8)
    waiting = machine.status()
    check("no network: the service runs, the Playola station says loading",
          address == "" and started[:1] == ["active"] and waiting.get("state") == "loading" and waiting.get("station") == "porch",
          f"no IPv4 address: {address == ''}; playola {started[0] if started else '?'} since "
          f"{fmt(int(started[1]) / 1e6 if len(started) > 1 else None, '.1f')} after the kernel started; "
          f"8 s after play porch: {waiting.get('state')} {waiting.get('station')}")
    capture = machine.capture(machine.card)   # the card cold-plug plugged in
    plugged = stamp()
    machine.qmp.execute("set_link", name="net0", up=True)
    addressed = None
    while stamp() < plugged + 60 and addressed is None:
        if agent.out("ip -4 -o addr show scope global"):
            addressed = stamp() - plugged
        else:
            time.sleep(0.5)
    status = machine.wait_status(lambda s: s.get("state") == "playing" and s.get("station") == "porch", timeout=60)
    playing = stamp() - plugged if status.get("state") == "playing" else None
    at, offset = capture.first_sound(plugged, timeout=10)
    sounding = at - plugged if at is not None else None
    frequency = pitch(capture.window_after(offset, skip=0.5)) if offset else None
    # The spins of the window's wall-clock time: the player is on schedule when it plays the spin of that time
    # or one that began up to PLAYOLA_TOLERANCE before (the Date header's truncation and the request's latency
    # make it late), or 0.5 s after (the capture's own timing). This asked for the spin of "now - 1 s" when
    # the window had been read, and failed once when the player was nearly on time at a spin's start.
    window = time.time() - (stamp() - (at + 0.6)) if at is not None else time.time()
    spins = sorted({api.spin_at(window - PLAYOLA_TOLERANCE), api.spin_at(window), api.spin_at(window + 0.5)})
    expected = [api.frequency(k) for k in spins]
    check("cable in: the Playola station plays the right spin",
          playing is not None and frequency is not None and min(abs(frequency - f) for f in expected) < 15,
          f"address {fmt(addressed)} after the cable went in, status playing after {fmt(playing)}, sound after "
          f"{fmt(sounding)}: {fmt(frequency, '.0f', ' Hz')} (spins {spins} are "
          f"{', '.join(f'{f:.0f}' for f in expected)} Hz)")
