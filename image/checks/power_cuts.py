"""power cuts: N times boot, play, press next and cut the power 0-2 s later; each boot plays, fsck clean, the report whole.

On the run's own copies of the boot and persistent partitions (amd64), the Playola station edited out of the
boot partition's INI from the host; --power-cuts N (1 with --only and no --power-cuts). The first boot also
checks that steady playing writes nothing to the persistent partition."""
import os, random, time

from testlib.disks import Disks, without_section
from testlib.log import fmt, log, stamp
from testlib.machine import Machine, early_kernel_panic
from testlib.target import PERSISTENT

BOOT = "power-cuts"
ARCHES = ("amd64",)


def run(t):
    power_cuts(t.args, t.api, t.check, t.args.power_cuts or 1, t.shared)


def power_cuts(args, api, check, cuts, shared):
    """Issue 13: the plug pulled at any moment. The host edits the boot partition's INI (the Playola station
    out: these boots play the two local stations), then boots cuts + 1 times on the same disks: each boot must
    play within --audio-deadline on the station before the last press or the one after it; then the next
    station is pressed and QEMU is killed (QMP quit: no shutdown) 0-2 s later, inside the state write or
    not, and fsck checks both file systems. A last boot with a broken edit on the boot partition plays the last
    good configuration and says what is wrong, with its line (broken-edit)."""
    run = os.path.abspath(args.run_dir) + "-cuts"
    disks = Disks(run + "-disks")
    edited = without_section(disks.read_ini(), "station porch")
    disks.write_ini(edited)
    stations = ["sweep", "tone"]
    expected = {"sweep"}
    audio_times, counts, failures = [], dict(new=0, old=0, fs_errors=0, dirty=0, reports_broken=0), []
    for n in range(cuts + 1):
        machine = Machine(run, card=True, plugs=0, timeout=int(args.boot_deadline + 300), api_port=api.port, disks=disks)
        try:
            at, _ = machine.capture(0).first_sound(machine.powered, timeout=args.audio_deadline)
            if at is None and early_kernel_panic(machine):
                # The guest's kernel died in its own initcalls, before any disk is mounted or any of ours runs
                # (seen once in ~35 boots under QEMU: sched_clock_cpu in cpu_latency_qos_init): the emulator's
                # fault, which says nothing of the cut before it. Said, and booted again on the same disks.
                check.fault(f"power-cut boot {n}: the guest kernel panicked in an initcall, before userspace; "
                            "booted again on the same disks")
                machine.stop()
                machine = Machine(run, card=True, plugs=0, timeout=int(args.boot_deadline + 300), api_port=api.port, disks=disks)
                at, _ = machine.capture(0).first_sound(machine.powered, timeout=args.audio_deadline)
            audio = at - machine.powered if at is not None else None
            station = None
            if machine.wait_for_agent(machine.powered + args.boot_deadline):
                station = machine.wait_status(lambda s: s.get("state") == "playing", timeout=30).get("station")
            audio_times.append(audio)
            if n > 0:
                counts["new" if station == after else "old"] += station in expected
            if audio is None or audio > args.audio_deadline or station not in expected:
                failures.append(f"boot {n}: audio {fmt(audio, '.1f')}, station {station} (expected {' or '.join(sorted(expected))})")
            log(f"power-cut boot {n}: audio {fmt(audio, '.1f')} after power-on, station {station}")
            if n == 0 and station is not None:
                check_steady_writes(machine, check)
            if n == cuts:
                break
            before = station if station in stations else "sweep"
            after = stations[(stations.index(before) + 1) % len(stations)]
            machine.connect_qmp()
            delay = random.uniform(0.0, 2.0)
            pressed = machine.press("next_station")
            while stamp() < pressed + delay:
                time.sleep(0.01)
            machine.qmp.execute("quit")
            machine.qemu.wait(timeout=30)
            expected = {before, after}
            ok, said = disks.fsck()
            counts["fs_errors"] += not ok
            counts["dirty"] += "dirty bit" in said
            report = report_whole(disks.read("playola-report.txt"))
            counts["reports_broken"] += report is False
            log(f"cut {n + 1}: {delay:.2f} s after the press ({before} -> {after}); {said}; "
                f"playola-report.txt {'whole' if report else 'not there yet' if report is None else 'BROKEN'}")
        finally:
            machine.stop()
    clean = sum(1 for a in audio_times if a is not None and a <= args.audio_deadline)
    print(f"power cuts: {cuts} cuts, {clean} of {len(audio_times)} boots played within {args.audio_deadline:.0f} s "
          f"(slowest {fmt(max((a for a in audio_times if a is not None), default=None), '.1f')}), station after a cut: "
          f"{counts['new']} the new one, {counts['old']} the old one; {counts['fs_errors']} file-system errors", flush=True)
    check(f"power cuts: {cuts} cuts, every boot plays the station before or after the press",
          not failures and len(audio_times) == cuts + 1, "; ".join(failures) or f"{clean} boots, all playing in time")
    check("power cuts: fsck finds no error after any cut", counts["fs_errors"] == 0,
          f"{counts['fs_errors']} of {cuts}; {counts['dirty']} cut during a write of the FAT (playola-report.txt)")
    check("power cuts: playola-report.txt on the FAT is whole after every cut (the old report or the new)",
          counts["reports_broken"] == 0, f"{counts['reports_broken']} of {cuts} broken")
    shared.update(run=run, disks=disks, expected=expected)     # broken-edit's boot, on these disks


def report_whole(text):
    """playola-report.txt as the card holds it: True when whole (its first line and a last line ended), False
    when cut short, None when there is none yet."""
    if text is None:
        return None
    return text.startswith(b"Playola Appliance: what this box is doing\n") and text.endswith(b"\n")


def check_steady_writes(machine, check, seconds=30):
    """Steady playing writes nothing to the card: the persistent partition's sectors written, from the
    kernel's block statistics, stay the same over `seconds` of playing. A `sync` first: what the boot wrote
    (the random seed, timesyncd's clock file, the service's first state) may otherwise reach the disk in
    this window, up to 30 s later (the kernel's dirty_expire), as a run here saw."""
    device = os.path.basename(machine.agent.out(f"findmnt -no SOURCE {PERSISTENT}"))
    machine.agent.run("sync")
    def written():
        fields = machine.agent.out(f"cat /sys/class/block/{device}/stat").split()
        return int(fields[6]) if len(fields) > 6 else None
    first = written()
    time.sleep(seconds)
    last = written()
    state = machine.status().get("state")
    check(f"steady playing writes nothing to the persistent partition ({seconds} s)",
          first is not None and last == first and state == "playing",
          f"{device}: {first} sectors written before, {last} after; {state}")
