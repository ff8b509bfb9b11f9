"""image/test's checks, one module each, named by its file (boot_to_play.py is boot-to-play). Each declares

    BOOT    the boot it runs in: "1" (with the USB card, the cable in), "2" (without the card, the cable out),
            "power-cuts" (its own boots on the run's own disks, amd64) or "update" (the Pi's card, arm64)
    AFTER   the checks of that boot it needs first (image/test --only pulls them in); when one of them returns
            False from run(), it is skipped (boot-to-play does when no audio ever came)
    ARCHES  the arches it runs on (default both)
    MACHINES  the machines it runs on (None: the arch's first, q35 or virt; "raspi3b": image/test --machine);
            default all
    run(t)  the check: t.machine (the booted Machine, None for power-cuts and update), t.args, t.api (the fake
            Playola API), t.check (Checks: each call one PASS:/FAIL: line), t.shared (a dict for the boot)

and its docstring's first line, which `image/test --list` prints. ORDER is the order they run in, boot by boot."""

ORDER = [
    # boot 1, with the USB card
    "boot-to-play", "pi-board", "read-only-root", "interrupt", "hotplug", "next-and-stop", "remote", "hostname", "image", "wifi", "last-good",
    "fleet", "playola", "lost-network", "late-buttons", "power-button",
    # boot 2, without the card, the cable out
    "cold-plug", "offline-start",
    # --power-cuts N (amd64)
    "power-cuts", "broken-edit", "card-report",
    # --update (arm64)
    "update",
]
