"""read-only root: / and /boot/firmware read-only (the FAT nosuid, nodev, noexec), the persistent partition (fsck'd at boot) the only writable one."""
import time

from testlib.target import PERSISTENT, PERSISTENT_BINDS

BOOT = "1"


def run(t):
    check_read_only_root(t.machine, t.check)


def check_read_only_root(machine, check):
    """Issue 13: the root and the boot partition mounted read-only, a write to /usr refused; the only
    writable persistent mounts are the persistent partition and its three binds (the journal's too), checked by fsck at boot."""
    agent = machine.agent
    # The FAT is writable for the moment playola-report.txt is copied onto it (card-report): looked at between.
    deadline = time.monotonic() + 90
    while agent.out("systemctl show -P ActiveState playola-report.service") in ("activating", "active", "deactivating") \
            and time.monotonic() < deadline:
        time.sleep(0.5)
    root = agent.out("findmnt -no OPTIONS /").split(",")[0]
    boot_options = agent.out("findmnt -no OPTIONS /boot/firmware").split(",")
    boot = boot_options[0]
    # Nothing on the FAT partition, which anyone with the card can write, runs or opens a device (issue 38).
    fat_inert = {"nosuid", "nodev", "noexec"} <= set(boot_options)
    code, _, refused = agent.run("touch /usr/playola-write-test")
    device = agent.out(f"findmnt -no SOURCE {PERSISTENT}")
    writable = {}
    for line in agent.out("findmnt -rn -o TARGET,SOURCE,OPTIONS -t ext4,ext3,ext2,vfat,btrfs,xfs,f2fs").splitlines():
        target, source, options = line.split(" ", 2)    # -r escapes blanks inside a field
        if options.split(",")[0] == "rw":
            writable[target] = source
    stray = {t: s for t, s in writable.items() if t not in PERSISTENT_BINDS or not device or not s.startswith(device)}
    fsck = agent.out(f"journalctl -b -o cat --no-pager -u 'systemd-fsck@*' | grep -m1 -E 'clean|recover|fix'")
    check("read-only root: /, /boot/firmware read-only; persistent writes only on the data partition",
          root == "ro" and boot == "ro" and fat_inert and code != 0 and device != "" and set(writable) == PERSISTENT_BINDS
          and not stray and fsck != "",
          f"/ {root}, /boot/firmware {','.join(boot_options)}; touch /usr/...: {refused.strip() or 'ALLOWED'}; writable: "
          + ", ".join(f"{t} ({s})" for t, s in sorted(writable.items())) + f"; fsck at boot: {fsck or 'none seen'}")
