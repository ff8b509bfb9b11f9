#!/usr/bin/env python3
"""Reads S16 stereo PCM from a FIFO (the capture of the test card, Tests/Support/alsa_clock_plugin.c) and notes
when things arrive, for bench/startup.sh: one line "first T" at the first byte, then "sound T" each time
sound (a sample above -30 dBFS) follows at least 0.2 s of silence (T: Unix time, seconds). At the end of each
writer it opens the FIFO again, so one reader, started before the player, serves every run: the times do
not include a reader's start-up (spawned by alsa-lib behind a pyenv shim, that was 100-150 ms).

The pipe is shrunk to one page (F_SETPIPE_SZ), so a frame is read within a few ms of the card playing it.
Usage: first_sound.py FIFO EVENTS_FILE RATE
"""
import array, fcntl, os, sys, time

fifo, events, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = open(events, "a", buffering=1)
bytes_per_second = rate * 4
while True:
    source = os.open(fifo, os.O_RDONLY)  # waits for the next writer
    sized = False  # F_SETPIPE_SZ fails while the pipe holds more than a page: tried again after each read
    start, total, quiet = None, 0, rate  # frames of silence so far (a start counts as after silence)
    while data := os.read(source, bytes_per_second // 100):
        if not sized:
            try:
                fcntl.fcntl(source, 1031, 4096)  # F_SETPIPE_SZ
                sized = True
            except OSError:
                pass
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
    os.close(source)
