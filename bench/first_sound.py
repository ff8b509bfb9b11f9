#!/usr/bin/env python3
"""Reads S16 stereo PCM from standard input (an ALSA `file` plugin's pipe) at the real-time rate and notes
when things arrive, for bench/startup.sh: one line "first T" at the first byte, then "sound T" each time
sound (a sample above -30 dBFS) follows at least 0.2 s of silence (T: Unix time, seconds).

The pipe is shrunk to one page (F_SETPIPE_SZ), so a frame is read within a few ms of the player writing it.
Usage: first_sound.py EVENTS_FILE RATE
"""
import array, fcntl, os, sys, time

events, rate = sys.argv[1], int(sys.argv[2])
try:
    fcntl.fcntl(0, 1031, 4096)  # F_SETPIPE_SZ
except OSError:
    pass
out = open(events, "a", buffering=1)
bytes_per_second = rate * 4
start, total, quiet = None, 0, rate  # frames of silence so far (a start counts as after silence)
while True:
    data = os.read(0, bytes_per_second // 100)
    if not data:
        break
    now = time.time()
    if start is None:
        start = now
        out.write(f"first {now:.6f}\n")
    data = data[: len(data) - len(data) % 4]
    samples = array.array("h", data)
    loud = max(map(abs, samples), default=0) > 1000
    if loud and quiet >= rate // 5:
        out.write(f"sound {now:.6f}\n")
    quiet = 0 if loud else quiet + len(samples) // 2
    total += len(data)
    ahead = total / bytes_per_second - (time.time() - start)
    if ahead > 0:
        time.sleep(ahead)
