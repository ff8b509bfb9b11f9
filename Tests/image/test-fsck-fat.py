#!/usr/bin/env python3
"""The e2e suite's reading of fsck.vfat (image/testlib/disks.py, fat_only_dirty) on real FAT file systems made
by mkfs.vfat: a power cut while Linux has the FAT writable leaves its dirty bit (and, on FAT32, a boot sector
that differs from its backup in that byte), which the image's fsck at boot clears, and which the suite accepts
after a cut; any other finding is an error. Usage: python3 Tests/image/test-fsck-fat.py"""
import os, shutil, subprocess, sys, tempfile, unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "image"))
from testlib.disks import fat_only_dirty    # noqa: E402


class FatDirtyBitTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="playola-test-fsck-fat.")

    def tearDown(self):
        shutil.rmtree(self.folder)

    def fat(self, bits, kib):
        path = os.path.join(self.folder, f"fat{bits}.img")
        subprocess.run(["mkfs.vfat", "-F", str(bits), "-C", path, str(kib)], check=True, capture_output=True)
        return path

    def poke(self, path, offset, value):
        with open(path, "r+b") as f:
            f.seek(offset)
            f.write(bytes([value]))

    def fsck(self, path):
        done = subprocess.run(["fsck.vfat", "-n", path], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    def test_the_dirty_bit_alone_is_accepted_on_fat16_and_fat32(self):
        for bits, kib, offset in ((16, 65536, 37), (32, 300000, 65)):
            path = self.fat(bits, kib)
            self.assertEqual(self.fsck(path)[0], 0)
            self.poke(path, offset, 1)
            code, said = self.fsck(path)
            self.assertEqual(code, 1, said)
            self.assertTrue(fat_only_dirty(said), said)
            subprocess.run(["fsck.vfat", "-a", path], capture_output=True)
            self.assertEqual(self.fsck(path)[0], 0, "fsck -a, as at the image's boot, leaves it clean")

    def test_a_damaged_fat_is_not(self):
        path = self.fat(16, 65536)
        self.poke(path, 37, 1)
        # The second FAT's first entry made to differ from the first FAT's: a real inconsistency.
        with open(path, "rb") as f:
            boot = f.read(512)
        reserved, per_fat = int.from_bytes(boot[14:16], "little"), int.from_bytes(boot[22:24], "little")
        self.poke(path, (reserved + per_fat) * 512 + 4, 0x55)
        code, said = self.fsck(path)
        self.assertNotEqual(code, 0, said)
        self.assertFalse(fat_only_dirty(said), said)


if __name__ == "__main__":
    if not shutil.which("mkfs.vfat"):
        sys.exit("test-fsck-fat: needs mkfs.vfat and fsck.vfat (dosfstools)")
    unittest.main()
