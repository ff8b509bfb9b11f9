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
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, name, ok, detail=""):
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)
        log(f"{'PASS' if ok else 'FAIL'}: {name}{': ' + detail if detail else ''}")
        return ok


def fmt(value, spec=".2f", unit=" s"):
    return "none" if value is None else f"{value:{spec}}{unit}"
