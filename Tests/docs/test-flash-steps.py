#!/usr/bin/env python3
"""doc/image.md's "Flash it" steps, done to the shipped sample as an owner does them: each line of the step's
```ini block is put into its section of etc/playola.ini, over the line that has that key (its `;` taken off) or
after the section's header; then `playola check-config` must accept the result with no error, and the values
must be what it reads. Usage: Tests/docs/test-flash-steps.py [PLAYOLA] (default .build/debug/playola)."""
import os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def owners_edits():
    """The (section, key, value) lines of the first ```ini block of doc/image.md's "Flash it" section."""
    with open(os.path.join(ROOT, "doc", "image.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Flash it"):]
    section = section[:section.index("\n## ", 1)]
    block = re.search(r"```ini\n(.*?)```", section, re.S)
    if not block:
        raise SystemExit("FAIL: doc/image.md's Flash it has no ```ini block of the owner's edits")
    edits, current = [], None
    for line in block.group(1).splitlines():
        line = line.strip()
        if line.startswith("["):
            current = line
        elif "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            edits.append((current, key, value))
    return edits


def apply(sample, edits):
    lines = sample.splitlines()
    for section, key, value in edits:
        start = next((i for i, line in enumerate(lines) if line.strip() == section), None)
        if start is None:
            lines += ["", section, f"{key} = {value}"]
            continue
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
        at = next((i for i in range(start + 1, end) if re.match(rf"^;?\s*{re.escape(key)}\s*=", lines[i])), None)
        if at is None:
            lines.insert(start + 1, f"{key} = {value}")
        else:
            lines[at] = f"{key} = {value}"
    return "\n".join(lines) + "\n"


def main():
    playola = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "playola")
    edits = owners_edits()
    with open(os.path.join(ROOT, "etc", "playola.ini"), encoding="utf-8") as f:
        edited = apply(f.read(), edits)
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "playola.ini")
        with open(path, "w", encoding="utf-8") as f:
            f.write(edited)
        done = subprocess.run([playola, "check-config", path], capture_output=True, text=True)
        said = (done.stdout + done.stderr).strip()
        errors = [line for line in said.splitlines() if ": error:" in line]
        ok = done.returncode == 0 and not errors
        print(f"{'PASS' if ok else 'FAIL'}: the sample with the owner's edits ({', '.join(k for _, k, _ in edits)}) "
              f"passes check-config (exit {done.returncode}){'' if ok else ': ' + said}")
        failures += not ok
        for section, key, value in edits:
            # Each edit is in force: exactly one uncommented line of that key in its section.
            count = len(re.findall(rf"^{re.escape(key)}\s*=\s*{re.escape(value)}$", edited, re.M))
            good = count == 1
            print(f"{'PASS' if good else 'FAIL'}: {section} {key} is set once ({count})")
            failures += not good
    print(f"test-flash-steps: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
