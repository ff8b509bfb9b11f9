"""The run's own writable disks: the amd64 image's boot and persistent partitions (Disks, for the power cuts) and
the Pi's whole card (Card, for the update), edited from the host between boots and checked with fsck."""
import hashlib, json, os, re, shutil, subprocess

from . import target


class Disks:
    """The run's own copies of the boot and persistent partitions (amd64: boot.vfat, data.ext4), booted
    writable (image/boot's BOOT_DISK, DATA_DISK): the state carries from one boot to the next, and between
    boots the host edits the INI (mtools, as a user would from any computer) and checks the file systems."""

    def __init__(self, directory):
        os.makedirs(directory, exist_ok=True)
        self.boot, self.data = os.path.join(directory, "boot.vfat"), os.path.join(directory, "data.ext4")
        shutil.copyfile(os.path.join(target.IMAGE_DIR, "boot.vfat"), self.boot)
        shutil.copyfile(os.path.join(target.IMAGE_DIR, "data.ext4"), self.data)

    def environment(self):
        return {"BOOT_DISK": self.boot, "DATA_DISK": self.data}

    def read_ini(self):
        return subprocess.run(["mtype", "-i", self.boot, "::playola.ini"], capture_output=True, text=True, check=True).stdout

    def read(self, name):
        """The FAT's file `name` as bytes, None if there is none."""
        done = subprocess.run(["mtype", "-i", self.boot, f"::{name}"], capture_output=True)
        return done.stdout if done.returncode == 0 else None

    def write_ini(self, text):
        local = self.boot + ".ini"
        with open(local, "w") as f:
            f.write(text)
        subprocess.run(["mcopy", "-o", "-i", self.boot, local, "::playola.ini"], check=True)
        os.remove(local)

    def fsck(self):
        """Both file systems as the board finds them at its next boot: the persistent partition's journal
        replayed on a scratch copy (what mounting it does), then `e2fsck -fn`; the FAT with `fsck.vfat -n`.
        (ok, what they said)."""
        scratch = self.data + ".fsck"
        shutil.copyfile(self.data, scratch)
        try:
            return fsck_scratch(scratch, self.boot)
        finally:
            os.remove(scratch)


def fsck_scratch(data, boot):
    """fsck of a scratch copy `data` of a persistent partition (its journal replayed first, as mounting it
    does, then `e2fsck -fn`) and of the FAT image `boot` (`fsck.vfat -n`): (ok, what they said)."""
    replay = subprocess.run(["e2fsck", "-p", "-E", "journal_only", data], capture_output=True, text=True)
    ext4 = subprocess.run(["e2fsck", "-fn", data], capture_output=True, text=True)
    vfat = subprocess.run(["fsck.vfat", "-n", boot], capture_output=True, text=True)
    dirty = vfat.returncode == 1 and fat_only_dirty(vfat.stdout + vfat.stderr)
    said = (f"journal replay exit {replay.returncode}; e2fsck -fn exit {ext4.returncode}: "
            f"{(ext4.stdout.strip().splitlines() or ['?'])[-1]}; fsck.vfat -n exit {vfat.returncode}"
            + (" (the dirty bit alone: cut during a write of the FAT, cleared by fsck at the next boot)" if dirty else ""))
    return ext4.returncode == 0 and (vfat.returncode == 0 or dirty) and replay.returncode in (0, 1), said


def fat_only_dirty(said):
    """fsck.vfat -n found nothing but the dirty bit, which Linux sets while the FAT is mounted writable (the
    boot selection's fw_setenv, the report's card-report) and which the image's fsck.vfat at boot (fstab pass
    2) clears. On FAT32 the bit (byte 65 of the boot sector; 37 on FAT16) also differs from the backup boot
    sector's, which fsck says, and which goes with the bit."""
    known = ("fsck.fat ", "Dirty bit is set.", "Automatically removing dirty bit.", "Leaving filesystem unchanged.",
             "There are differences between boot sector and its backup.", "This is mostly harmless.",
             "Not automatically fixing this.")
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    return any(line.startswith("Dirty bit is set.") for line in lines) and all(
        line.startswith(known) or re.match(r"^\S+: \d+ files, \d+/\d+ clusters$", line)
        or re.match(r"^(37|65):0?1/0?0$", line) for line in lines)


def without_section(text, name):
    """The INI text without section [name] (its header up to the next section's)."""
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("["):
            inside = line.strip() == f"[{name}]"
        if not inside:
            kept.append(line)
    return "".join(kept)


class Card:
    """The run's own copy of the Pi's card (--update), booted writable (image/boot-arm64's DISK): what each boot
    writes (the slots, the boot state, the persistent partition) is there at the next, and between boots the
    host puts files on its FAT partition, as an owner would from any computer."""

    def __init__(self, directory):
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, "card.img")
        subprocess.run(["cp", "--sparse=always", os.path.join(target.IMAGE_DIR, target.spec()["disk"]), self.path], check=True)
        table = json.loads(subprocess.run(["sfdisk", "-J", self.path], capture_output=True, text=True, check=True).stdout)
        self.partitions = [(p["start"] * 512, p["size"] * 512) for p in table["partitiontable"]["partitions"]]

    def environment(self):
        return {"DISK": self.path}

    def fat(self):
        return f"{self.path}@@{self.partitions[0][0]}"

    def put(self, local, name):
        subprocess.run(["mcopy", "-o", "-i", self.fat(), local, f"::{name}"], check=True)

    def remove(self, name):
        subprocess.run(["mdel", "-i", self.fat(), f"::{name}"], capture_output=True)

    def read(self, name):
        return subprocess.run(["mtype", "-i", self.fat(), f"::{name}"], capture_output=True, text=True, check=True).stdout

    def slot(self, name):
        """(offset, size) of root slot A (partition 2) or B (3)."""
        return self.partitions[1 if name == "A" else 2]

    def slot_digest(self, name):
        offset, size = self.slot(name)
        digest = hashlib.sha256()
        with open(self.path, "rb") as f:
            f.seek(offset)
            left = size
            while left:
                chunk = f.read(min(left, 8 << 20))
                if not chunk:
                    break
                digest.update(chunk)
                left -= len(chunk)
        return digest.hexdigest()[:16]

    def extract_slot(self, name, out):
        self.extract(self.slot(name), out)

    def extract(self, partition, out):
        offset, size = partition
        subprocess.run(["dd", f"if={self.path}", f"of={out}", "bs=1M", f"skip={offset >> 20}", f"count={size >> 20}",
                        "conv=sparse", "status=none"], check=True)

    def fsck(self):
        """The card's FAT and persistent partitions as the board finds them at its next boot (fsck_scratch)."""
        boot, data = self.path + ".fsck-boot", self.path + ".fsck-data"
        try:
            self.extract(self.partitions[0], boot)
            self.extract(self.partitions[3], data)
            return fsck_scratch(data, boot)
        finally:
            for path in (boot, data):
                if os.path.exists(path):
                    os.remove(path)
