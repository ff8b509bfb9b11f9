"""The suite: image/checks/'s checks, chosen by name (image/test --only, with the checks they need) or by boot
(--boots, --power-cuts, --update), run in their order, each boot booted once for the checks chosen in it. A
check that fails (a FAIL: line, or an exception) has its guest journal, its part of each capture, the console
and the guest's event lines kept in RUN_DIR/failed/NAME/, and the path printed."""
import importlib, os, shutil

from . import target
from .audio import keep_part
from .log import log, stamp
from .machine import Machine

CHECKS = os.path.join(target.ROOT, "image", "checks")
# The boots, in the order they run; "1" and "2" are one machine each, booted here; the others boot their own.
BOOTS = {
    "1": "boot 1: with the USB card, the cable in (RUN_DIR)",
    "2": "boot 2: without the card, the cable out (RUN_DIR-nocard)",
    "power-cuts": "power cuts: its own boots on the run's own boot and persistent partitions (amd64, --power-cuts N)",
    "update": "update: its own boots of the run's own copy of the Pi's card (arm64, --update)",
}


class Check:
    """One module of image/checks/: its name, boot, the checks it needs, its arches and its title."""

    def __init__(self, name, module):
        self.name, self.module = name, module
        self.boot = module.BOOT
        self.after = tuple(getattr(module, "AFTER", ()))
        self.arches = tuple(getattr(module, "ARCHES", tuple(target.TARGETS)))
        # The machines it runs on: None is each arch's first (q35, virt); default every one.
        self.machines = tuple(getattr(module, "MACHINES", (None, *target.MACHINES)))
        self.title = (module.__doc__ or name).strip().splitlines()[0]


def load():
    """The checks in their order (image/checks' ORDER); every file there named in it, each need before its check."""
    import checks
    files = {name[:-3].replace("_", "-") for name in os.listdir(CHECKS) if name.endswith(".py") and name != "__init__.py"}
    if files != set(checks.ORDER) or len(checks.ORDER) != len(files):
        raise RuntimeError(f"image/checks: ORDER names {sorted(set(checks.ORDER) - files)} without a file, "
                           f"files {sorted(files - set(checks.ORDER))} are not in ORDER")
    loaded = [Check(name, importlib.import_module("checks." + name.replace("-", "_"))) for name in checks.ORDER]
    seen = {}
    for check in loaded:
        if check.boot not in BOOTS:
            raise RuntimeError(f"image/checks: {check.name}'s BOOT {check.boot!r} is none of {', '.join(BOOTS)}")
        for need in check.after:
            if seen.get(need) != check.boot:
                raise RuntimeError(f"image/checks: {check.name} needs {need}, which is not before it in boot {check.boot}")
        seen[check.name] = check.boot
    return loaded


def listing(checks):
    """--list: the checks by boot, with what each needs and its arches if not both."""
    lines = []
    for boot, title in BOOTS.items():
        lines.append(title)
        for check in (c for c in checks if c.boot == boot):
            notes = ([f"after {', '.join(check.after)}"] if check.after else []) + \
                    ([" ".join(check.arches) + " only"] if len(check.arches) < len(target.TARGETS) else []) + \
                    ([" ".join(m for m in check.machines if m) + " only (--machine)"] if None not in check.machines else [])
            lines.append(f"  {check.name:<15} {check.title}" + (f" ({'; '.join(notes)})" if notes else ""))
    return "\n".join(lines)


def runs_here(check):
    """Whether `check` is for the arch and machine chosen (target.select)."""
    return target.ARCH in check.arches and target.MACHINE in check.machines


def choose(checks, args, only):
    """The checks to run: those `only` names and the ones they need; without it, those of the boots the options
    ask for (--boots, --power-cuts N, --update). ValueError names an unknown check or one not for this arch."""
    by_name = {check.name: check for check in checks}
    if not only:
        boots = {boot for boot in "12" if boot in args.boots}
        boots |= {"power-cuts"} if args.power_cuts > 0 else set()
        boots |= {"update"} if args.update else set()
        return [check for check in checks if check.boot in boots and runs_here(check)]
    unknown = [name for name in only if name not in by_name]
    if unknown:
        raise ValueError(f"no check named {', '.join(unknown)} (image/test --list names them)")
    elsewhere = [name for name in only if not runs_here(by_name[name])]
    if elsewhere:
        raise ValueError(", ".join(f"{name} runs on {' '.join(by_name[name].arches)} only"
                                   + ("" if None in by_name[name].machines else
                                      f", booted with --machine {' or '.join(m for m in by_name[name].machines if m)}")
                                   for name in elsewhere))
    wanted = set()

    def need(name):
        if name not in wanted:
            wanted.add(name)
            for other in by_name[name].after:
                need(other)
    for name in only:
        need(name)
    return [check for check in checks if check.name in wanted]


class Context:
    """What a check's run(t) is handed."""

    def __init__(self, args, api, check, machine=None):
        self.args, self.api, self.check, self.machine = args, api, check, machine
        self.shared = {}


def run(chosen, args, api, check, machine_class=Machine):
    """Runs the chosen checks boot by boot; RUN_DIR/failed/ holds this run's failed checks only. A boot (or an
    own-boots check) that failed where the emulator itself failed (Machine.emulator_fault) is taken back and run
    once more, the fault named in check.faults; a check that failed on a sound emulator is never run again.
    `machine_class` is the machine booted (a fake one in Tests/image/test-suite-runner.py)."""
    kept = os.path.join(os.path.abspath(args.run_dir), "failed")
    shutil.rmtree(kept, ignore_errors=True)
    for boot in BOOTS:
        todo = [c for c in chosen if c.boot == boot]
        if not todo:
            continue
        if boot in ("1", "2"):
            retried(f"boot {boot}", lambda: run_boot(boot, todo, args, api, check, kept, machine_class), check)
        else:
            run_own_boots(todo, args, api, check, kept, machine_class)


def retried(what, attempt, check):
    """attempt() returns the emulator fault that spoiled it, or None; after a fault its results are taken back
    and it runs once more (a second fault stands: its failures count)."""
    mark = check.mark()
    fault = attempt()
    if fault:
        check.fault(f"{what}: {fault}; run again")
        check.rollback(mark)
        fault = attempt()
        if fault:
            check.fault(f"{what}: {fault} again; not run a third time")


def run_boot(number, todo, args, api, check, kept, machine_class):
    """Boot 1 (the card, the cable in) or 2 (neither), then its checks in order; one whose need returned False
    is skipped, and an exception ends the boot (a FAIL: line "boot N"). Returns the emulator's fault if a check
    failed (or the guest never answered) on a machine whose emulator failed, else None."""
    card = number == "1"
    run = os.path.abspath(args.run_dir) + ("" if card else "-nocard")
    machine = machine_class(run, card=card, plugs=1, timeout=int(args.boot_deadline + 420), api_port=api.port, cable=card)
    context = Context(args, api, check, machine)
    done, at_start = set(), check.failed
    fault = None
    try:
        if machine.boot_up(args, check):
            since = machine.powered
            for item in todo:
                missing = [name for name in item.after if name not in done]
                if missing:
                    log(f"skipped: {item.name}, as {', '.join(missing)} did not pass")
                    check.record(item.name, "skipped", 0)
                    continue
                failed = check.failed
                try:
                    ok = item.module.run(context)
                except Exception as error:
                    check(f"boot {number}", False, f"{item.name}: {type(error).__name__}: {error}")
                    check.record(item.name, "failed", stamp() - since)
                    keep(item.name, machine, since, kept)
                    break
                check.record(item.name, "failed" if check.failed > failed else "passed", stamp() - since)
                if check.failed > failed:
                    keep(item.name, machine, since, kept)
                    if machine.emulator_fault():       # the rest would only wait on a dead machine
                        break
                if ok is not False:
                    done.add(item.name)
                since = stamp()
        elif check.failed > at_start:        # the guest agent never answered
            keep(f"boot-{number}", machine, machine.powered, kept)
    except Exception as error:
        check(f"boot {number}", False, f"{type(error).__name__}: {error}")
    finally:
        if check.failed > at_start:
            fault = machine.emulator_fault()
        machine.stop()
    log(f"boot {number} done")
    return fault


def run_own_boots(todo, args, api, check, kept, machine_class):
    """The power cuts' or the update's checks, which boot machines of their own; an exception is a FAIL: line.
    One that failed on a machine whose emulator failed runs once more, from its start."""
    context = Context(args, api, check)
    done = set()
    for item in todo:
        missing = [name for name in item.after if name not in done]
        if missing:
            log(f"skipped: {item.name}, as {', '.join(missing)} did not pass")
            check.record(item.name, "skipped", 0)
            continue
        outcome = {}

        def attempt(item=item):
            failed, since = check.failed, stamp()
            machine_class.latest = None
            try:
                outcome["ok"] = item.module.run(context)
            except Exception as error:
                check(item.name, False, f"{type(error).__name__}: {error}")
                outcome["ok"] = False
            check.record(item.name, "failed" if check.failed > failed else "passed", stamp() - since)
            if check.failed == failed:
                return None
            keep(item.name, machine_class.latest, since, kept)
            latest = machine_class.latest
            return latest.emulator_fault() if latest is not None else None
        retried(item.name, attempt, check)
        if outcome["ok"] is not False:
            done.add(item.name)


def keep(name, machine, since, kept):
    """A failed check's evidence in kept/NAME/: the guest's journal of this boot (journal.txt, if the guest still
    answers), each capture from 5 s before the check began (cap<n>.wav), the console and the event lines."""
    where = os.path.join(kept, name)
    os.makedirs(where, exist_ok=True)
    if machine is None:
        log(f"kept for {name}: nothing, no machine was booted")
        return
    saved = []
    if machine.qemu.poll() is None:
        try:
            machine.agent.sync()
            code, journal, err = machine.agent.run("journalctl -b --no-pager -o short-monotonic", timeout=120)
            with open(os.path.join(where, "journal.txt"), "w") as f:
                f.write(journal)
            saved.append(f"journal.txt ({len(journal.splitlines())} lines)")
        except Exception as error:
            saved.append(f"no journal (the guest agent: {type(error).__name__}: {error})")
            machine.agent.close()
    else:
        saved.append("no journal (the machine was off)")
    start = max(machine.powered, since - 5)
    for number, capture in sorted(machine.captures.items()):
        seconds = keep_part(capture, start, os.path.join(where, f"cap{number}.wav"))
        if seconds:
            saved.append(f"cap{number}.wav ({seconds:.1f} s from {start:.1f} s)")
    console = os.path.join(machine.run, "console.log")
    if os.path.exists(console):
        shutil.copyfile(console, os.path.join(where, "console.log"))
        saved.append("console.log")
    with machine.events.lock:
        lines = list(machine.events.lines)
    with open(os.path.join(where, "events.txt"), "w") as f:
        f.writelines(f"[{at:7.2f}s] {line}\n" for at, line in lines)
    saved.append("events.txt")
    log(f"kept for {name}: {where}: {', '.join(saved)}")
