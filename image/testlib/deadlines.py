"""Every deadline of the emulated boots in one place: the worst figure measured here (2 cores under TCG, the host
loaded by other builds: bench/RESULTS.md) times a factor for the accelerator the run is on, ×1 with KVM and ×3
under TCG. A wait polls, so a passing run never waits out a deadline: the factor costs only a failing run time,
and a slow emulator on a loaded host does not fail a check by chance."""
import os

FACTORS = {"kvm": 1, "tcg": 3}


def accelerator(arch):
    """image/boot's ACCEL for amd64 (tcg by default: this host's /dev/kvm cannot boot a stock kernel); the arm64
    guest on this amd64 host is always emulated (image/boot-arm64)."""
    return os.environ.get("ACCEL", "tcg") if arch == "amd64" else "tcg"


# Seconds from power-on, worst seen here under TCG: the guest agent answering, and the card playing (boot to
# play: amd64 163 s with the trixie network on a loaded host, arm64 191 s before it booted through U-Boot).
MEASURED = {
    "amd64": dict(agent=163.0, audio=163.0),
    "arm64": dict(agent=191.0, audio=191.0),
    "raspi3b": dict(agent=400.0, audio=400.0),
}


def deadline(arch, what):
    """The deadline for `what` (agent, audio) on `arch` (or a machine of image/test --machine): the measured
    figure times the accelerator's factor."""
    return MEASURED[arch][what] * FACTORS[accelerator(arch)]


def describe(arch):
    """One line for the run's log: the figures, the factor and the deadlines they make."""
    figures, accel = MEASURED[arch], accelerator(arch)
    return (f"deadlines ({arch}, {accel} ×{FACTORS[accel]}): guest agent {figures['agent']:.0f} s measured → "
            f"{deadline(arch, 'agent'):.0f} s, audio {figures['audio']:.0f} s measured → {deadline(arch, 'audio'):.0f} s")
