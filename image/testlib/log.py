"""The run's clock and its output: times on the host's monotonic clock from the start, each line stamped, and
the PASS:/FAIL: lines the closing "N passed, M failed" counts."""
import time

t0 = time.monotonic()
wall0 = time.time() - (time.monotonic() - t0)   # host wall clock at t0


def stamp():
    return time.monotonic() - t0


def log(message):
    print(f"[{stamp():7.2f}s] {message}", flush=True)


class Checks:
    """The PASS:/FAIL: lines, the run's record of each check of image/checks (name, result, seconds) and the
    emulator's faults it booted again after. A boot that an emulator fault ended is taken back (rollback) and
    its checks run once more: what they said the first time is not counted."""

    def __init__(self):
        self.passed = self.failed = 0
        self.records, self.faults = [], []

    def __call__(self, name, ok, detail=""):
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)
        log(f"{'PASS' if ok else 'FAIL'}: {name}{': ' + detail if detail else ''}")
        return ok

    def mark(self):
        return self.passed, self.failed, len(self.records)

    def rollback(self, mark):
        self.passed, self.failed, records = mark
        del self.records[records:]

    def record(self, name, result, seconds):
        """One check of image/checks done: passed, failed or skipped, in `seconds`."""
        self.records.append(dict(check=name, result=result, seconds=round(seconds, 1)))

    def fault(self, what):
        """An emulator fault (QEMU ended by a signal, the guest kernel panicking before userspace), booted again."""
        self.faults.append(what)
        log(f"emulator fault: {what}")


def fmt(value, spec=".2f", unit=" s"):
    return "none" if value is None else f"{value:{spec}}{unit}"
