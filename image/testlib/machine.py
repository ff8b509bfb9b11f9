"""One boot of the test image under QEMU (image/boot, image/boot-arm64): the guest agent, QMP, the guest's event
lines on its second serial port, the captures of the USB card, the buttons on the simulated GPIO chip."""
import glob, json, os, re, socket, subprocess, threading, time

from . import target
from .agent import Agent
from .audio import CYCLE, Capture
from .log import log, stamp, wall0
from .qmp import QMP

RTC_OFFSET = -3600        # the guest's clock starts an hour behind


class Events(threading.Thread):
    """Lines from the guest's event port (udev sound events, the gpio-sim chip), each stamped on arrival."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.lines, self.lock = path, [], threading.Lock()

    def run(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:                               # QEMU creates the socket a moment after it starts
            try:
                sock.connect(self.path)
                break
            except OSError:
                time.sleep(0.05)
        buf = b""
        while True:
            data = sock.recv(4096)
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                # On the Pi's mini UART each line comes after a byte of the 8250 driver's own (an "X", each time
                # the guest opens the port): patterns are searched, not anchored at the start.
                line = line.decode(errors="replace").strip()
                if line:
                    with self.lock:
                        self.lines.append((stamp(), line))

    def wait(self, pattern, after, timeout):
        """(time, line) of the first line matching pattern stamped after `after`, or (None, None)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                for at, line in self.lines:
                    if at >= after and re.search(pattern, line):
                        return at, line
            if time.monotonic() >= deadline:
                return None, None
            time.sleep(0.02)


class Machine:
    """One boot of the test image: QEMU, the guest agent, QMP, the ttyS1 events, the first capture. `card` is
    the number of the capture (cap<n>.wav) the USB card plays into, None while there is none; a check that
    plugs a card in sets it. Machine.latest is the last one powered on (whose files a failed check keeps)."""

    latest = None

    def __init__(self, run, card, plugs, timeout, api_port, cable=True, disks=None):
        self.run = run
        Machine.latest = self
        os.makedirs(run, exist_ok=True)
        for old in glob.glob(os.path.join(run, "cap*.wav")):
            os.remove(old)
        # The host's end of the forward to the guest's MPD port (image/boot's MPD_PORT), free when chosen.
        self.mpd_port = free_port()
        # The host's port the guest's 10.0.2.101:1883 is forwarded to (image/boot's BROKER_PORT): the fleet check's broker.
        self.broker_port = free_port()
        self.powered = stamp()
        self.qemu = subprocess.Popen([os.path.join(target.ROOT, "image", target.spec()["boot"]), run],
                                     env=dict(os.environ, IMAGE_DIR=target.IMAGE_DIR, TIMEOUT=str(timeout), CARD="1" if card else "0",
                                              PLUGS=str(plugs), API_PORT=str(api_port), MPD_PORT=str(self.mpd_port), BROKER_PORT=str(self.broker_port), RTC_OFFSET=str(RTC_OFFSET),
                                              **(disks.environment() if disks else {})))
        self.events = Events(os.path.join(run, "events.sock"))
        self.events.start()
        self.captures = {}
        self.card = 0 if card else None
        if card:
            self.capture(0)       # followed from power-on, so the first audio is timed when it comes
        self.agent = Agent(os.path.join(run, "qga.sock"), timeout=target.spec().get("agent_timeout", 10.0))
        self.qmp = None
        self.clock_offset = 0.0
        self.stopped, self.ended_before_stop = False, None
        self.agent_answered = False
        if not cable:
            # Out before the guest's kernel is up: QMP answers within a second of QEMU's start.
            self.connect_qmp()
            self.qmp.execute("set_link", name="net0", up=False)
        log(f"power on ({'with' if card else 'without'} the USB card{'' if cable else ', the network cable out'})")

    def capture(self, n):
        if n not in self.captures:
            self.captures[n] = Capture(os.path.join(self.run, f"cap{n}.wav"))
            self.captures[n].start()
        return self.captures[n]

    def wait_for_agent(self, deadline):
        while stamp() < deadline:
            if self.qemu.poll() is not None:
                return False
            try:
                self.agent.sync()
                self.agent.call("guest-ping")
                self.agent_answered = True
                return True
            except (OSError, TimeoutError, ValueError, RuntimeError):
                self.agent.close()
                time.sleep(0.5)
        return False

    def connect_qmp(self):
        deadline = time.monotonic() + 10
        while self.qmp is None:                   # QEMU makes the socket a moment after it starts
            try:
                self.qmp = QMP(os.path.join(self.run, "qmp.sock"))
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def measure_clock(self):
        """Guest wall clock minus host wall clock (the guest's RTC has one-second resolution)."""
        before = time.time()
        guest = self.agent.call("guest-get-time") / 1e9
        after = time.time()
        self.clock_offset = guest - (before + after) / 2
        return self.clock_offset

    def expected_position(self, at):
        """Where the sweep's loop is at host time `at`, by the guest's wall clock."""
        return (wall0 + at + self.clock_offset) % CYCLE

    def status(self):
        """`playola status --json` in the guest; a state that says why when there is no answer: a guest slowed
        by the emulator's load (seen: the guest agent silent for over 10 s while the board verified a bundle
        beside two other emulators) is waited for by the caller's deadline, not taken for a failure."""
        try:
            code, out, err = self.agent.run("playola status --json")
        except (OSError, TimeoutError, RuntimeError) as error:
            return {"state": f"(no status: the guest agent: {error or type(error).__name__})"}
        try:
            return json.loads(out)
        except ValueError:
            return {"state": f"(no status: {err.strip() or out.strip()})"}

    def wait_status(self, predicate, timeout=5.0):
        deadline = time.monotonic() + timeout
        while True:
            status = self.status()
            if predicate(status) or time.monotonic() > deadline:
                return status
            time.sleep(0.2)

    def sim_path(self, line):
        _, found = self.events.wait(r"gpio-sim /", 0, 0)
        return f"{found.split('gpio-sim ')[1].split()[0]}/sim_gpio{target.LINES[line]}" if found else None

    def press(self, line, hold=0.2, wait=True):
        """Pulls a button's line to ground (the INI says active_low) for `hold` seconds, from the guest's
        shell. Returns the host time at the press's end."""
        path = self.sim_path(line)
        shell = f"echo pull-down >{path}/pull && sleep {hold} && echo pull-up >{path}/pull"
        if wait:
            code, _, err = self.agent.run(shell)
            if code != 0:
                raise RuntimeError(f"press {line}: {err.strip()}")
        else:
            self.agent.start(shell)
        return stamp()

    def wait_for_position(self, low, high):
        """Waits until the sweep's loop is between low and high seconds, so a measurement lands on one file
        rather than inside the loop's crossfade."""
        while not low <= self.expected_position(stamp()) <= high:
            time.sleep(0.1)

    def listening(self):
        """The TCP addresses playola.service's processes listen on, sorted (ss in the guest)."""
        out = self.agent.out("ss -Htlnp")
        return sorted(line.split()[3] for line in out.splitlines() if '"playola"' in line)

    def journal_lines(self):
        return int(self.agent.out("journalctl -b -u playola -o cat --no-pager | wc -l") or 0)

    def emulator_fault(self):
        """What went wrong with the emulator itself, or None: QEMU ended by a signal this test did not send
        (image/boot's `timeout` passes it on, as -N or 128+N; 124 is its own deadline, not a fault), or the guest
        kernel panicking before userspace, or the Pi's USB port lost by QEMU's dwc2 model. How QEMU ended before
        stop(), whose kill is the test's own."""
        code = self.ended_before_stop if self.stopped else self.qemu.poll()
        if code is not None and (code < 0 or 128 < code < 160):
            return f"QEMU ended by signal {-code if code < 0 else code - 128}"
        if early_kernel_panic(self):
            return "the guest kernel panicked in an initcall, before userspace"
        if usb_port_lost(self):
            return "QEMU's dwc2 model left the Pi's USB port unconnected (console: 'dwc2 ...: Not connected')"
        return None

    def stop(self):
        if not self.stopped:
            self.stopped, self.ended_before_stop = True, self.qemu.poll()
        if self.qemu.poll() is None:
            try:
                self.agent.call("guest-exec", {"path": "/bin/systemctl", "arg": ["poweroff"]})
                self.qemu.wait(timeout=60)
            except Exception:
                pass
        if self.qemu.poll() is None:
            try:
                (self.qmp or QMP(os.path.join(self.run, "qmp.sock"))).execute("quit")
            except Exception:
                pass
            try:
                self.qemu.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.qemu.kill()
                self.qemu.wait()
        self.agent.close()
        for capture in self.captures.values():
            capture.done.set()

    def boot_up(self, args, check):
        return boot_up(self, args, check)

    def console(self, lines=15):
        try:
            with open(os.path.join(self.run, "console.log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except FileNotFoundError:
            return "(no console log)\n"


def boot_up(machine, args, check):
    """Waits for the guest agent and a settled system; False (and a failed check) if it never answers."""
    if not machine.wait_for_agent(machine.powered + args.boot_deadline):
        check("guest agent", False, "no answer; last console lines:\n" + machine.console())
        return False
    log("guest agent answers")
    out = machine.agent.out("timeout 90 systemctl is-system-running --wait; systemd-analyze | head -n1", timeout=120)
    log("guest: " + " | ".join(out.splitlines()))
    failed = machine.agent.out("systemctl --failed --no-legend --plain | cut -d' ' -f1")
    if failed:
        log("guest: failed units: " + " ".join(failed.split()))
    chain = machine.agent.out("systemd-analyze critical-chain playola.service --no-pager | tail -n +4", timeout=120)
    log("guest: playola.service's critical chain:\n    " + "\n    ".join(chain.splitlines()))
    machine.connect_qmp()
    log(f"guest clock - host clock: {machine.measure_clock():+.3f} s")
    return True


def early_kernel_panic(machine):
    """The guest's kernel panicked inside its initcalls (`do_one_initcall` in the trace): before the root file
    system is mounted, so before anything the disks hold could have mattered."""
    console = machine.console(400)
    return "Kernel panic" in console and "do_one_initcall" in console


def usb_port_lost(machine):
    """On raspi3b, QEMU's dwc2 model left its one port unconnected: the guest's driver answers every transfer
    with "Not connected", so the DAC, the NIC and the guest agent behind it never appear, and the agent never
    answered. Seen in one raspi3b boot of ten, with two other emulators and a build beside it (bench/RESULTS.md,
    e2e run 28); U-Boot's USB stop leaves the port so every time (image/boot-raspi3b)."""
    console = machine.console(400)
    return not machine.agent_answered and "dwc2" in console and "Not connected" in console


def free_port():
    """A TCP port of the host's 127.0.0.1 that nothing listens on now (QEMU binds it a moment later)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
