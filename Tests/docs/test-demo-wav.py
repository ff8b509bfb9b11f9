#!/usr/bin/env python3
"""The README's first command, for a few seconds, on a machine where no ALSA device opens (ALSA_CONFIG_PATH names
an empty configuration): script/demo plays into out/demo-live.wav, and Python's wave module, which trusts the
header, reads it: the rate is the one the demo printed, the frames are the time played (the --for seconds, less
the start-up), and the samples are not silence. Usage: Tests/docs/test-demo-wav.py [PLAYOLA] [SECONDS]."""
import array, os, re, subprocess, sys, tempfile, wave

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    playola = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "playola"))
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    failures = 0

    def check(what, ok, detail=""):
        nonlocal failures
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'}: {what}{': ' + detail if detail else ''}")

    with tempfile.TemporaryDirectory() as work:
        empty = os.path.join(work, "alsa.conf")
        open(empty, "w").close()
        done = subprocess.run([os.path.join(ROOT, "script", "demo"), str(seconds)], cwd=ROOT, capture_output=True,
                              text=True, env=dict(os.environ, PLAYOLA=playola, ALSA_CONFIG_PATH=empty), timeout=seconds + 120)
    said = done.stdout + done.stderr
    check("script/demo exits 0", done.returncode == 0, f"exit {done.returncode}" if done.returncode else "")
    named = re.search(r"played into (\S+/out/demo-live\.wav) \((\d+) Hz, (\d+)-bit stereo\)", said)
    check("it names the file and the rate it played at", named is not None, "" if named else said[-600:])
    if named is None:
        return 1
    path, rate, bits = named.group(1), int(named.group(2)), int(named.group(3))
    with wave.open(path, "rb") as wav:
        frames, channels, width, file_rate = wav.getnframes(), wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
        samples = array.array("h", wav.readframes(frames)) if width == 2 else array.array("h")
    played = frames / file_rate if file_rate else 0
    print(f"demo-live.wav: {frames} frames at {file_rate} Hz ({played:.2f} s), {channels} channels, {8 * width}-bit; "
          f"{os.path.getsize(path)} bytes")
    check("the header's rate is the one the demo printed", file_rate == rate, f"{file_rate} against {rate}")
    check("16-bit stereo, as printed", (channels, 8 * width) == (2, bits) and bits == 16, f"{channels} channels, {8 * width}-bit")
    check("the header's sizes hold every byte of audio in the file", 44 + frames * channels * width == os.path.getsize(path))
    # The service runs for --for seconds from its start; the first block is mixed once the station is read and
    # the fallback opened (well under a second here), and the pacer keeps 0.2 s in hand of real time, with the
    # blocks of the stop's fade after it (5.27 s measured for 5).
    check(f"the frames are the time played ({seconds - 1}-{seconds + 0.5} s)", seconds - 1 <= played <= seconds + 0.5,
          f"{played:.2f} s")
    loud = max((abs(s) for s in samples), default=0)
    check("the demo station is in it (not silence)", loud > 1000, f"peak {loud}")
    print(f"test-demo-wav: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
