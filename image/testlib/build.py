"""What the test boots: the trixie .deb (make deb) and the test image (image/build --test), made when missing or
older than their inputs."""
import glob, os, subprocess, time

from . import target
from .log import log
from .target import ROOT


def is_harness(path):
    """The test's own files (image/test, its library and its checks), which the image does not hold: a change to
    them does not make the image stale."""
    relative = os.path.relpath(path, os.path.join(ROOT, "image"))
    return relative == "test" or relative.split(os.sep)[0] in ("testlib", "checks") or "/__pycache__/" in path


def trixie_debs():
    """build/playola_*_ARCH.deb built for trixie (a host build names bookworm's libgpiod2), oldest first."""
    debs = sorted(glob.glob(os.path.join(ROOT, "build", f"playola_*_{target.ARCH}.deb")), key=os.path.getmtime)
    return [deb for deb in debs if "libgpiod3" in subprocess.run(["dpkg-deb", "-f", deb, "Depends"],
                                                                  capture_output=True, text=True).stdout]


def build(rebuild, deb=None):
    spec = target.spec()
    debs = [os.path.abspath(deb)] if deb else trixie_debs()
    if rebuild or not debs:
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
