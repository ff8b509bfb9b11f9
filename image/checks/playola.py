"""Playola station: the right spin at the right position, its files in the cache tmpfs, a listening session.

The moment one spin's tone gives way to the next, against the schedule by the host's clock (the guest's is an
hour behind), the spins in the cache tmpfs, the session reported with the boot partition's token."""
import time

from testlib.audio import pitch
from testlib.log import fmt, log, stamp, wall0
from testlib.guest_timing import spin_change, spin_tolerance
from testlib.target import STATION_ID, TOKEN

BOOT = "1"
AFTER = ("boot-to-play",)


def run(t):
    check_playola(t.machine, t.api, t.machine.capture(t.machine.card), t.check)


def check_playola(machine, api, capture, check):
    """The Playola station over the network: the right spin at the right position against the host's clock
    (the guest's is an hour behind), the files in the cache tmpfs, a listening session with the token."""
    api.publish()
    asked = stamp()
    machine.agent.run("playola play porch")
    status = machine.wait_status(lambda s: s.get("station") == "porch" and s.get("state") == "playing", timeout=90)
    playing = stamp() - asked if status.get("state") == "playing" else None
    log(f"playola play porch: {status.get('state')} after {fmt(playing)}; guest clock - host clock {machine.measure_clock():+.1f} s")
    # The position is measured once the 10-minute window is in the cache: when the player asked for the whole
    # window at once, under TCG (arm64: once in three runs) the next spin's file came after its airtime. It
    # now fetches two at a time in airtime order (StationPlayerTests' cold start over a slow line); the wait
    # stays, as this check is the schedule's, not the downloads'.
    deadline = stamp() + 60
    while stamp() < deadline and int(machine.agent.out(
            f"find /var/cache/playola -type f -size {api.file_bytes()}c | wc -l") or 0) < 40:
        time.sleep(1)
    # The first spin boundary at least 3 s from now, by the host's wall clock.
    k = api.spin_at(time.time() + 3) + 1
    boundary = api.airtime(k) - wall0                   # host monotonic time the schedule says it changes
    error, gap, how = spin_change(machine, api, capture, k, boundary)
    before = pitch(capture.window(boundary - 1.0))
    after = pitch(capture.window(boundary + 2.0))
    check("Playola station: the right spin at the right position",
          playing is not None and error is not None and abs(error) <= spin_tolerance(),
          f"spin {k - 1} ({api.frequency(k - 1):.0f} Hz) gave way to spin {k} ({api.frequency(k):.0f} Hz) "
          f"{fmt(error, '+.2f')} from the scheduled moment (tolerance {spin_tolerance()} s; {fmt(gap)} of neither "
          f"tone before it); captured "
          f"{fmt(before, '.0f', ' Hz')} before, {fmt(after, '.0f', ' Hz')} after; playing {fmt(playing)} after the play command{how}")
    notice = machine.agent.out("journalctl -b -u playola -o cat --no-pager | grep -m1 'differs from the server'")
    cached = machine.agent.out(f"findmnt -no FSTYPE /var/cache/playola; find /var/cache/playola -type f -size {api.file_bytes()}c | wc -l").split()
    check("Playola station: spins in the cache tmpfs, the clock corrected by the server's",
          cached[:1] == ["tmpfs"] and len(cached) > 1 and int(cached[1]) >= 2 and notice != "",
          f"/var/cache/playola ({cached[0] if cached else '?'}) holds {cached[1] if len(cached) > 1 else 0} spin files; {notice or 'no clock notice'}")
    deadline = time.monotonic() + 15
    while True:
        sessions = [r for r in api.requests() if r["method"] == "POST" and r["path"] == "/v1/listeningSessions"]
        good = [r for r in sessions if r["headers"].get("authorization") == f"Bearer {TOKEN}" and r["status"] == 200
                and isinstance(r["body"], dict) and r["body"].get("stationId") == STATION_ID]
        if good or time.monotonic() > deadline:
            break
        time.sleep(1)
    check("Playola station: listening session reported with the boot partition's token", bool(good),
          f"{len(good)} of {len(sessions)} session reports with 'Bearer {TOKEN}' for {STATION_ID}")
