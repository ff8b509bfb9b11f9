"""power cuts: N times boot, play, rewrite the card's report, press next and cut the power 0-2 s later; each boot plays, fsck clean, the report whole, the journal kept.

On the run's own copies of the boot and persistent partitions (amd64), the Playola station edited out of the
boot partition's INI from the host; --power-cuts N (1 with --only and no --power-cuts). The first boot also
checks that 10 minutes of steady playing write nothing to the persistent partition but the journal's batches
(and the sectors an hour that makes) and playola-report.txt at most once; after the first cut that boot's
journal is read from the persistent partition on the host, as on any Linux (journalctl -D), and after the
last at most four boots' journals are kept there."""
import os, random, re, shutil, subprocess, tempfile, time

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
    edited = without_section(without_section(disks.read_ini(), "station porch"), "remote")
    disks.write_ini(edited)
    stations = ["sweep", "tone"]
    expected = {"sweep"}
    audio_times, counts, failures = [], dict(new=0, old=0, fs_errors=0, dirty=0, reports_broken=0, in_rewrite=0, report_new=0, report_old=0), []
    # QEMU's own time limit, a safety net: the first boot also plays 10 minutes (check_steady_writes) after
    # waiting up to 3 for its report, and a loaded host took 205 s to its first sound.
    limit = int(args.boot_deadline + 300 + (STEADY_SECONDS + 180))
    for n in range(cuts + 1):
        machine = Machine(run, card=True, plugs=0, timeout=limit, api_port=api.port, disks=disks)
        try:
            at, _ = machine.capture(0).first_sound(machine.powered, timeout=args.audio_deadline)
            if at is None and early_kernel_panic(machine):
                # The guest's kernel died in its own initcalls, before any disk is mounted or any of ours runs
                # (seen once in ~35 boots under QEMU: sched_clock_cpu in cpu_latency_qos_init): the emulator's
                # fault, which says nothing of the cut before it. Said, and booted again on the same disks.
                check.fault(f"power-cut boot {n}: the guest kernel panicked in an initcall, before userspace; "
                            "booted again on the same disks")
                machine.stop()
                machine = Machine(run, card=True, plugs=0, timeout=limit, api_port=api.port, disks=disks)
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
                ports = machine.listening()
                check("remote control: without [remote], the service listens on no TCP port", ports == [],
                      f"playola's TCP listeners: {ports or 'none'}")
                mdns = machine.agent.out("systemctl is-active avahi-daemon; ss -Hulnp 'sport = :5353'").split()
                check("remote control: without [remote], no mDNS: avahi-daemon not running, nothing on port 5353",
                      mdns == ["inactive"], f"avahi-daemon and port 5353: {' '.join(mdns)}")
                check_steady_writes(machine, check)
            if n == cuts:
                break
            before = station if station in stations else "sweep"
            after = stations[(stations.index(before) + 1) % len(stations)]
            machine.connect_qmp()
            rewriting = start_rewrites(machine)
            delay = random.uniform(0.0, 2.0)
            pressed = machine.press("next_station")
            while stamp() < pressed + delay:
                time.sleep(0.01)
            machine.qmp.execute("quit")
            cut = stamp()
            machine.qemu.wait(timeout=30)
            expected = {before, after}
            ok, said = disks.fsck()
            counts["fs_errors"] += not ok
            counts["dirty"] += "dirty bit" in said
            writing = rewrite_at(machine, cut) if rewriting else None
            counts["in_rewrite"] += writing is not None and writing[1] == "start"
            kind, report = report_after_cut(disks.read("playola-report.txt"), writing)
            counts["reports_broken"] += kind == "broken"
            counts["report_new"] += kind == "new"
            counts["report_old"] += kind == "old"
            log(f"cut {n + 1}: {delay:.2f} s after the press ({before} -> {after}); {said}; "
                f"{f'rewrite {writing[0]} {writing[1]}ed' if writing else 'no rewrite started'}; playola-report.txt {report}")
            if n == 0:
                check_journal_after_cut(disks, check)
            if n == cuts - 1:
                check_journals_kept(disks, check, boots=cuts + 1)
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
          counts["reports_broken"] == 0, f"{counts['reports_broken']} of {cuts} broken or missing; "
          f"{counts['in_rewrite']} of {cuts} cuts landed inside a rewrite of it; the card then held the new "
          f"report {counts['report_new']} times, the old one {counts['report_old']}")
    shared.update(run=run, disks=disks, expected=expected)     # broken-edit's boot, on these disks


REPORT_HEAD = b"Playola Appliance: what this box is doing\n"

# The card's report rewritten over and over from the moment the loop starts, as root in the guest, so that a
# cut lands inside a rewrite (the service rewrites it at most once a minute, too seldom to aim at): the
# helper's once-a-minute bound set to 0 for the units systemd starts from now on, and a helper already
# waiting out its minute ended; then each round puts a report of its own (generation i, 300 lines) where the
# service keeps its report and starts the helper as its unit does. The rounds are told on the guest's ttyS1,
# which the host stamps.
REWRITES = r"""systemctl set-environment CARD_REPORT_INTERVAL=0
systemctl stop playola-report.service
i=0
while :; do
    i=$((i + 1))
    { echo 'Playola Appliance: what this box is doing'; echo "cut test: generation $i"
      seq -f "line %g of generation $i" 300; echo "end of generation $i"; } >/run/playola/report.txt
    echo "report-write $i start" >/dev/ttyS1
    systemctl start playola-report.service
    echo "report-write $i done" >/dev/ttyS1
done"""


def generation(i):
    lines = [f"cut test: generation {i}"] + [f"line {k} of generation {i}" for k in range(1, 301)] + [f"end of generation {i}"]
    return REPORT_HEAD + "".join(line + "\n" for line in lines).encode()


def start_rewrites(machine):
    """Starts REWRITES in the guest and waits for its second round: the first is done, so the card holds one
    of the loop's reports. Then waits a random part of a round (the first one's length: seconds under TCG,
    longer than the press and its 0-2 s), so that the cut falls at any point of a round, the FAT's writable
    moment included. True if the loop ran."""
    started = stamp()
    machine.agent.start(REWRITES)
    first, _ = machine.events.wait(r"report-write 1 start$", started, 60)
    done, _ = machine.events.wait(r"report-write 1 done$", started, 90)
    second, _ = machine.events.wait(r"report-write 2 start$", started, 90)
    if None in (first, done, second):
        return False
    time.sleep(random.uniform(0.0, done - first))
    return True


def rewrite_at(machine, cut):
    """(round, "start" or "done"): the last rewrite line the host had before the cut."""
    with machine.events.lock:
        said = [line for at, line in machine.events.lines if at <= cut and line.startswith("report-write ")]
    if not said:
        return None
    _, number, what = said[-1].split()
    return int(number), what


def report_after_cut(text, writing):
    """What the card holds after a cut, as (kind, words): "new" or "old" when it is the rewrite the cut fell
    in or, if that had not finished, the one before; "service" when it is the service's own report, whole;
    "broken" for anything else (none, cut short, mixed, or older than it may be)."""
    if text is None:
        return "broken", "MISSING"
    found = re.match(re.escape(REPORT_HEAD) + rb"cut test: generation (\d+)\n", text)
    if found is None:
        whole = text.startswith(REPORT_HEAD) and text.endswith(b"\n")
        return ("service", "whole: the service's") if whole else ("broken", f"BROKEN ({len(text)} bytes: {text[:60]!r})")
    number = int(found.group(1))
    if text != generation(number):
        return "broken", f"BROKEN: generation {number} cut short or mixed ({len(text)} bytes)"
    last, finished = writing if writing else (0, "done")
    if number != last and (finished == "done" or number != last - 1):
        return "broken", f"STALE: generation {number}, after rewrite {last} {finished}"
    kind = "new" if number == last else "old"
    return kind, f"whole: generation {number} (the {kind})"


STEADY_SECONDS = 600


def check_steady_writes(machine, check, seconds=STEADY_SECONDS):
    """Steady playing writes nothing to the card but the journal's batches (playola-journal-save.timer, 2 min
    after boot and every 10 min): the persistent partition's sectors written, from the kernel's block
    statistics, over `seconds` of playing: none in a window without a batch, at most 1024 (512 KiB) a batch;
    and playola-report.txt is rewritten at most once. The window opens once the boot's report is on the card:
    what the start-up changed (an audio device reopened under the emulator's load, seen here, is a change the
    report must say) is not steady play. A `sync` first: what the boot wrote (the random seed, timesyncd's
    clock file, the service's first state) may otherwise reach the disk in this window, up to 30 s later (the
    kernel's dirty_expire), as a run here saw; and one at the end, so what a batch wrote is counted whenever
    the kernel would have written it."""
    agent = machine.agent
    device = os.path.basename(agent.out(f"findmnt -no SOURCE {PERSISTENT}"))
    wrote = "journalctl -o cat --no-pager -u playola-report.service | grep -c '^card-report: wrote '"
    deadline = stamp() + 180
    while stamp() < deadline and agent.out(wrote) in ("", "0"):
        time.sleep(2)
    agent.run("sync")
    def written():
        fields = agent.out(f"cat /sys/class/block/{device}/stat").split()
        return int(fields[6]) if len(fields) > 6 else None
    since = agent.out("date +%s")
    first = written()
    time.sleep(seconds)
    agent.run("sync")
    last = written()
    state = machine.status().get("state")
    batches = agent.out(f"journalctl -o cat --no-pager --since=@{since} -u playola-journal-save.service | grep -c '^Finished'")
    batches = int(batches) if batches.isdigit() else None
    sectors = last - first if first is not None and last is not None else None
    hourly = f"{sectors * 3600 / seconds:.0f} sectors an hour" if sectors is not None else "?"
    check(f"steady playing writes only the journal's batches to the persistent partition ({seconds} s)",
          sectors is not None and batches is not None and (sectors == 0 if batches == 0 else sectors <= 1024 * batches)
          and state == "playing",
          f"{device}: {sectors} sectors written ({hourly}) in {batches} batches of the journal; {state}")
    rewrites = agent.out(f"journalctl -o cat --no-pager --since=@{since} -u playola-report.service | "
                         "grep -c '^card-report: wrote '")
    once = rewrites.isdigit() and int(rewrites) <= 1 and state == "playing"
    # What the service said meanwhile, to tell a change it reported from a rewrite it should not have made.
    said = "" if once else agent.out(
        f"journalctl -o short-monotonic --no-pager --since=@{since} -u playola.service -u playola-report.service | "
        "grep -v ' start \\| end \\|now playing' | tail -n 30; grep -a '^State\\|^Last\\|^Device' /boot/firmware/playola-report.txt")
    check(f"steady playing rewrites playola-report.txt at most once ({seconds} s)",
          once, f"{rewrites or '?'} rewrites; {state}" + (f"; the journal meanwhile:\n{said}" if said else ""))


def persistent_journal(disks):
    """The persistent partition's journal/ as the next boot finds it (its ext4 journal replayed on a scratch
    copy), read with the host's own journalctl -D, as an owner would from the card: (the boots listed, the
    newest boot's playola.service lines, the bytes kept)."""
    scratch = tempfile.mkdtemp(prefix="playola-journal-")
    try:
        data = os.path.join(scratch, "data.ext4")
        shutil.copyfile(disks.data, data)
        subprocess.run(["e2fsck", "-p", "-E", "journal_only", data], capture_output=True)
        subprocess.run(["debugfs", "-R", f"rdump /journal {scratch}", data], capture_output=True, check=True)
        journal = os.path.join(scratch, "journal")
        boots = subprocess.run(["journalctl", "-D", journal, "--list-boots", "--no-pager", "-q"],
                               capture_output=True, text=True).stdout.strip().splitlines()
        lines = subprocess.run(["journalctl", "-D", journal, "-b", "-0", "-u", "playola.service", "-o", "cat", "--no-pager"],
                               capture_output=True, text=True).stdout.splitlines()
        size = sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(journal) for name in names)
        return boots, lines, size
    finally:
        shutil.rmtree(scratch)


def check_journal_after_cut(disks, check):
    """Issue 29: the journal of the boot just cut (the first, which played its steady window) is on the
    persistent partition, and says what it played."""
    boots, lines, size = persistent_journal(disks)
    played = [line for line in lines if "now playing" in line]
    check("journal: the boot cut is read from the persistent partition (journalctl -D), and says what it played",
          bool(played) and len(boots) == 1,
          f"{len(boots)} boots kept, {size / 2**20:.2f} MiB; the boot cut: {len(lines)} lines of playola.service, "
          f"{played[-1] if played else 'no now playing'}")


def check_journals_kept(disks, check, boots):
    """After the last cut, at most four boots' journals are kept (journal-home), within 4 x SystemMaxUse."""
    listed, _, size = persistent_journal(disks)
    check("journal: at most four boots are kept on the persistent partition, at most 8 MiB",
          1 <= len(listed) <= min(4, boots) and size <= 8 * 2**20,
          f"{len(listed)} boots kept of {boots}, {size / 2**20:.2f} MiB")
