"""the card's report: a station whose server does not answer; after power-off the FAT's playola-report.txt, read on the host, names it and why.

On power-cuts' disks, after broken-edit: the INI gains a stream station whose server refuses (the host's port
9 through QEMU's user network); the owner plays it; once the report on the card names it, the machine is
stopped and the FAT partition read with mtools, as any computer would read it."""
import time

from testlib.log import stamp
from testlib.machine import Machine

BOOT = "power-cuts"
AFTER = ("broken-edit",)
ARCHES = ("amd64",)


def run(t):
    check_card_report(t.args, t.api, t.check, t.shared["run"], t.shared["disks"])


def check_card_report(args, api, check, run, disks):
    good = disks.read_ini()
    disks.write_ini(good + "\n[station dead]\ntype = stream\nurl = http://10.0.2.2:9/live\n")
    machine = Machine(run, card=True, plugs=0, timeout=int(args.boot_deadline + 600), api_port=api.port, disks=disks)
    inside, mounted, helper = "", "", ""
    try:
        if machine.wait_for_agent(machine.powered + args.boot_deadline):
            machine.wait_status(lambda s: s.get("state") == "playing", timeout=args.audio_deadline)
            machine.agent.run("playola play dead")
            # The report follows a change at most once a minute, and the copy onto the card follows the report.
            deadline = stamp() + 240
            while stamp() < deadline and "Station: dead (" not in inside:
                inside = machine.agent.out("cat /boot/firmware/playola-report.txt 2>/dev/null", timeout=30)
                time.sleep(3)
            mounted = machine.agent.out("findmnt -no OPTIONS /boot/firmware").split(",")[0]
            # What the two halves said, for a failure's detail.
            helper = machine.agent.out("ls -l /run/playola/report.txt; systemctl is-enabled playola-report.path; "
                                       "journalctl -b -o cat --no-pager -u playola-report.path -u playola-report.service | tail -n 8")
    finally:
        machine.stop()
        ok, fsck = disks.fsck()
        disks.write_ini(good)
    text = (disks.read("playola-report.txt") or b"").decode(errors="replace")
    lines = text.splitlines()
    state = next((line for line in lines if line.startswith("State:")), "")
    reason = [line for line in lines if line.startswith(("Stream:", "Network:", "State:")) and
              any(word in line.lower() for word in ("connect", "refused", "reach"))]
    check("the card's report: after power-off, playola-report.txt on the FAT names the silent station and why",
          any(line.startswith("Station: dead (internet radio") for line in lines) and bool(reason) and mounted == "ro" and ok,
          f"{state.strip() or 'no State line'}; {'; '.join(r.strip() for r in reason) or 'no reason found'}; "
          f"the FAT {mounted or '?'} after; {fsck}; {len(text)} bytes: {text[:300]!r}; in the guest: {helper!r}")
