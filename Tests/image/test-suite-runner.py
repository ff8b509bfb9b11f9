#!/usr/bin/env python3
"""The emulated boots' runner (image/testlib/suite.py) on fake machines: a boot whose emulator crashed is booted
once more and the fault named; a check that failed on a sound emulator is never run again; a second crash stands.
No QEMU: each fake machine plays a script (crash before the guest answers, crash inside a check, or boot)."""
import contextlib, importlib.machinery, importlib.util, io, os, sys, tempfile, threading, types, unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "image"))
from testlib import suite            # noqa: E402
from testlib.log import Checks       # noqa: E402


class FakeProcess:
    def __init__(self):
        self.code = None

    def poll(self):
        return self.code


class FakeAgent:
    def sync(self, timeout=3.0):
        raise OSError("a fake machine has no guest agent")

    def close(self):
        pass


class FakeMachine:
    """Each one made takes the next behaviour of `script`: "boots", "crashes" (QEMU ends by SIGSEGV before the
    guest answers) or "crashes-in-check" (the guest answers, QEMU ends by SIGSEGV inside the first check)."""
    script, made, latest = [], [], None

    def __init__(self, run, **options):
        self.behaviour = FakeMachine.script.pop(0)
        FakeMachine.made.append(self)
        FakeMachine.latest = self
        self.run, self.powered, self.captures = run, 0.0, {}
        self.qemu, self.agent = FakeProcess(), FakeAgent()
        self.events = types.SimpleNamespace(lock=threading.Lock(), lines=[])
        self.stopped = False

    def boot_up(self, args, check):
        if self.behaviour == "crashes":
            self.qemu.code = -11
            check("guest agent", False, "no answer")
            return False
        return True

    def in_check(self):
        """What a check sees of its machine: False if QEMU has just died under it."""
        if self.behaviour == "crashes-in-check":
            self.qemu.code = 128 + 11
            return False
        return True

    def emulator_fault(self):
        code = self.qemu.poll()
        return None if code is None else f"QEMU ended by signal {-code if code < 0 else code - 128}"

    def stop(self):
        self.stopped = True


def fake_check(name, boot, outcome, after=()):
    """A check module: each run counted in .runs; outcome(t) says pass (True) or fail (False)."""
    module = types.ModuleType(name)
    module.BOOT, module.AFTER, module.__doc__, module.runs = boot, after, f"{name}: a fake check", 0

    def run(t):
        module.runs += 1
        machine = t.machine or FakeMachine(t.args.run_dir)
        t.check(name, machine.in_check() and outcome(t))
        if t.machine is None:
            machine.stop()
    module.run = run
    return suite.Check(name, module)


class SuiteRunnerTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.args = types.SimpleNamespace(run_dir=os.path.join(self.folder.name, "run"), boot_deadline=1.0)
        self.api = types.SimpleNamespace(port=0)
        FakeMachine.script, FakeMachine.made, FakeMachine.latest = [], [], None

    def tearDown(self):
        self.folder.cleanup()

    def run_suite(self, checks, script):
        FakeMachine.script = list(script)
        check = Checks()
        self.said = io.StringIO()      # the fake runs' own PASS:/FAIL: lines, read by the tests, not shown
        with contextlib.redirect_stdout(self.said):
            suite.run(checks, self.args, self.api, check, machine_class=FakeMachine)
        self.assertEqual(FakeMachine.script, [], "every machine the test scripted was booted")
        return check

    def test_a_crash_before_the_guest_answers_is_booted_again_and_named(self):
        plays = fake_check("plays", "1", lambda t: True)
        check = self.run_suite([plays], ["crashes", "boots"])
        self.assertEqual(len(FakeMachine.made), 2)
        self.assertEqual((check.passed, check.failed), (1, 0), "the crashed boot's failure is taken back")
        self.assertEqual(plays.module.runs, 1)
        self.assertEqual(len(check.faults), 1)
        self.assertIn("boot 1: QEMU ended by signal 11; run again", check.faults[0])
        self.assertEqual(check.records, [dict(check="plays", result="passed", seconds=check.records[0]["seconds"])])
        self.assertTrue(all(machine.stopped for machine in FakeMachine.made))
        self.assertIn("emulator fault: boot 1: QEMU ended by signal 11; run again", self.said.getvalue())

    def test_a_crash_inside_a_check_runs_the_boot_again(self):
        first = fake_check("first", "1", lambda t: True)
        second = fake_check("second", "1", lambda t: True, after=("first",))
        check = self.run_suite([first, second], ["crashes-in-check", "boots"])
        self.assertEqual((check.passed, check.failed), (2, 0))
        self.assertEqual((first.module.runs, second.module.runs), (2, 1), "second was skipped on the crashed boot")
        self.assertEqual([r["result"] for r in check.records], ["passed", "passed"])
        self.assertEqual(len(check.faults), 1)

    def test_a_failed_check_on_a_sound_emulator_is_not_run_again(self):
        fails = fake_check("fails", "1", lambda t: False)
        after = fake_check("after", "1", lambda t: True)
        check = self.run_suite([fails, after], ["boots"])
        self.assertEqual(len(FakeMachine.made), 1)
        self.assertEqual((fails.module.runs, after.module.runs), (1, 1))
        self.assertEqual((check.passed, check.failed), (1, 1))
        self.assertEqual(check.faults, [])
        self.assertEqual([r["result"] for r in check.records], ["failed", "passed"])
        self.assertTrue(os.path.isdir(os.path.join(self.args.run_dir, "failed", "fails")), "its evidence is kept")

    def test_a_second_crash_stands(self):
        plays = fake_check("plays", "2", lambda t: True)
        check = self.run_suite([plays], ["crashes", "crashes"])
        self.assertEqual(len(FakeMachine.made), 2, "booted twice, never a third time")
        self.assertEqual((check.passed, check.failed), (0, 1))
        self.assertEqual(plays.module.runs, 0)
        self.assertEqual(len(check.faults), 2)
        self.assertIn("again; not run a third time", check.faults[1])

    def test_an_own_boots_check_whose_emulator_crashed_runs_once_more(self):
        cuts = fake_check("cuts", "power-cuts", lambda t: True)
        edit = fake_check("edit", "power-cuts", lambda t: True, after=("cuts",))
        check = self.run_suite([cuts, edit], ["crashes-in-check", "boots", "boots"])
        self.assertEqual((cuts.module.runs, edit.module.runs), (2, 1))
        self.assertEqual((check.passed, check.failed), (2, 0))
        self.assertEqual([r["check"] for r in check.records], ["cuts", "edit"])
        self.assertIn("cuts: QEMU ended by signal 11; run again", check.faults[0])

    def test_an_own_boots_check_that_failed_is_not_run_again(self):
        cuts = fake_check("cuts", "update", lambda t: False)
        check = self.run_suite([cuts], ["boots"])
        self.assertEqual(cuts.module.runs, 1)
        self.assertEqual((check.passed, check.failed), (0, 1))
        self.assertEqual(check.faults, [])


def load_e2e():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "script", "e2e")
    loader = importlib.machinery.SourceFileLoader("e2e", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("e2e", loader))
    loader.exec_module(module)
    return module


class PartsAtOnceTests(unittest.TestCase):
    """script/e2e --jobs: parts run at once, each to its own log; a part that cannot start fails alone."""

    def setUp(self):
        self.e2e = load_e2e()
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def part(self, mine, other, status):
        """A part that says it started, then waits (60 s at most) for `other` to have started too."""
        d = self.dir.name
        return ["sh", "-c", f"touch {d}/{mine}; i=0; while [ ! -e {d}/{other} ] && [ $i -lt 600 ]; do sleep 0.1; "
                            f"i=$((i+1)); done; [ -e {d}/{other} ] && echo {mine} saw {other}; exit {status}"]

    def run_parts(self, commands, jobs):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            ran = self.e2e.run_parts(commands, self.dir.name, jobs)
        return ran, out.getvalue()

    def test_two_jobs_run_two_parts_at_once(self):
        # Each waits for the other: run one after the other, neither would see the other start.
        ran, out = self.run_parts({"update": self.part("a", "b", 0), "amd64": self.part("b", "a", 3)}, jobs=2)
        self.assertEqual(ran["update"][0], 0)
        self.assertEqual(ran["amd64"][0], 3)
        with open(os.path.join(self.dir.name, "update.log")) as f:
            self.assertEqual(f.read(), "a saw b\n")
        self.assertIn("amd64  | b saw a\n", out)

    def test_one_job_runs_the_longest_first_and_one_at_a_time(self):
        ran, out = self.run_parts({"amd64": ["sh", "-c", "echo amd64"], "update": ["sh", "-c", "echo update"]}, jobs=1)
        self.assertEqual({name: status for name, (status, _) in ran.items()}, {"amd64": 0, "update": 0})
        self.assertLess(out.index("e2e: --- update"), out.index("e2e: --- amd64"))

    def test_a_part_that_cannot_start_fails_alone(self):
        ran, out = self.run_parts({"update": [os.path.join(self.dir.name, "missing")], "amd64": ["true"]}, jobs=2)
        self.assertEqual(ran["update"][0], 127)
        self.assertEqual(ran["amd64"][0], 0)
        self.assertIn("e2e: update:", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
