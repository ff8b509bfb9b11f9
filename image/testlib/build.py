"""What the test boots: the trixie .deb (make deb) and the test image (image/build --test), each made when missing or
older than its inputs."""
import contextlib, fcntl, glob, os, subprocess, time

from . import target
from .log import log
from .target import ROOT


# The scripts that start QEMU and carry its forwards: the image does not hold them either.
LAUNCHERS = ("test", "boot", "boot-arm64", "boot-raspi3b", "guestfwd-connect")


def is_harness(path):
    """The test's own files (image/test, its library and its checks, the launchers), which the image does not
    hold: a change to them does not make the image stale."""
    relative = os.path.relpath(path, os.path.join(ROOT, "image"))
    return relative in LAUNCHERS or relative.split(os.sep)[0] in ("testlib", "checks") or "/__pycache__/" in path


def trixie_debs():
    """build/playola_*_ARCH.deb built for trixie (a host build names bookworm's libgpiod2), oldest first."""
    debs = sorted(glob.glob(os.path.join(ROOT, "build", f"playola_*_{target.ARCH}.deb")), key=os.path.getmtime)
    return [deb for deb in debs if "libgpiod3" in subprocess.run(["dpkg-deb", "-f", deb, "Depends"],
                                                                  capture_output=True, text=True).stdout]


# What the package is made of (Makefile, packaging/build-trixie): a change to any makes the .deb stale.
PACKAGE_INPUTS = ("Package.swift", "Makefile", "Sources", "etc", "udev", "man", "packaging")


def newest(paths):
    """The newest modification time of the files under `paths` (relative to the checkout), 0 when none."""
    times = [0.0]
    for path in paths:
        full = os.path.join(ROOT, path)
        if os.path.isfile(full):
            times.append(os.path.getmtime(full))
        for folder, _, files in os.walk(full):
            times += [os.path.getmtime(os.path.join(folder, name)) for name in files]
    return max(times)


@contextlib.contextmanager
def builds_take_turns():
    """One build at a time in this checkout: script/e2e runs parts at once, and two of them may find the same
    package or image stale (the arm64 and update parts share the Pi image; the packages share packaging/'s
    roots). The second waits, then finds it made."""
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    with open(os.path.join(ROOT, "build", ".image-test-build.lock"), "w") as lock:
        started = time.monotonic()
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("another part is building: waiting for it")
            fcntl.flock(lock, fcntl.LOCK_EX)
            log(f"its build done after {time.monotonic() - started:.0f} s")
        yield


def build(rebuild, deb=None):
    with builds_take_turns():
        build_when_stale(rebuild, deb)


def build_when_stale(rebuild, deb):
    spec = target.spec()
    debs = [os.path.abspath(deb)] if deb else trixie_debs()
    # A package older than its sources would boot yesterday's service: made again (never one named by --deb).
    stale = not deb and bool(debs) and os.path.getmtime(debs[-1]) < newest(PACKAGE_INPUTS)
    if rebuild or not debs or stale:
        # The image is trixie: the package is built there (packaging/build-trixie), arm64 cross-compiled.
        make = ["deb", "DIST=trixie"] if target.ARCH == "amd64" else ["deb", f"ARCH={target.ARCH}"]
        log("make " + " ".join(make))
        subprocess.run(["make", "-C", ROOT] + make, check=True)
        debs = trixie_debs()
    image = os.path.join(target.IMAGE_DIR, spec["disk"])
    newest_input = max(os.path.getmtime(path) for path in [debs[-1]] + glob.glob(os.path.join(ROOT, "image", "**"), recursive=True)
                       if os.path.isfile(path) and not is_harness(path))
    try:
        with open(os.path.join(target.IMAGE_DIR, "variant")) as f:
            variant = f.read().strip()
    except FileNotFoundError:
        variant = None
    if rebuild or variant != spec["variant"] or not os.path.exists(image) or os.path.getmtime(image) < newest_input:
        log(f"image/build {' '.join(spec['build'])}")
        started = time.monotonic()
        subprocess.run([os.path.join(ROOT, "image", "build")] + spec["build"] + [debs[-1]], check=True,
                       env=dict(os.environ, OUT=target.IMAGE_DIR))
        log(f"image built in {time.monotonic() - started:.1f} s")
