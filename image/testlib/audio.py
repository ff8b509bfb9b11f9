"""The card's capture and what it says: sound and silence, pitch, the sweep's position in its loop, the moment one
tone gives way to another; a failed check's part of a capture kept as a WAV of its own."""
import os, struct, threading, time, wave

from .log import stamp

SILENCE = 64          # |sample| above this (of 32767) counts as sound: well over dither, far under the tones
HEADER = 44           # QEMU writes the WAV header's sizes only at close: the data starts at byte 44
# image/tones: the sweep station is one 32 s file rising 400 -> 1200 Hz, looped with a 2 s crossfade, so it
# repeats every 30 s from 2000-01-01 (a multiple of 30 s in Unix time); the other station is a 2000 Hz tone.
SWEEP_START, SWEEP_SLOPE, CYCLE, CROSSFADE = 400.0, 25.0, 30.0, 2.0
TONE = 2000.0
POSITION_TOLERANCE = 1.0   # seconds between the captured position and the wall clock's


class Capture(threading.Thread):
    """Follows a growing capture file: QEMU appends what the card plays as it plays it, so the file's size
    at a moment of the host clock is the position of the audio then. Polled every 20 ms."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.sizes, self.lock, self.done = path, [], threading.Lock(), threading.Event()
        self.channels, self.rate = 2, 48000

    def run(self):
        last = -1
        while not self.done.is_set():
            try:
                size = os.path.getsize(self.path)
            except OSError:
                size = -1
            if size != last and size >= HEADER:
                if last < HEADER:
                    with open(self.path, "rb") as wav:
                        self.channels, self.rate = struct.unpack("<HI", wav.read(28)[22:28])
                with self.lock:
                    self.sizes.append((stamp(), size))
                last = size
            time.sleep(0.02)

    @property
    def frame(self):
        return 2 * self.channels

    def offset_at(self, at):
        """Bytes written by `at` (host time)."""
        with self.lock:
            size = HEADER
            for when, written in self.sizes:
                if when > at:
                    break
                size = written
        return size - (size - HEADER) % self.frame

    def time_of(self, offset):
        """When the byte at `offset` had been written: the first poll that saw it (at most 20 ms late)."""
        with self.lock:
            for when, written in self.sizes:
                if written > offset:
                    return when
        return None

    def samples(self, start, end):
        """The first channel's samples between two byte offsets."""
        start = max(HEADER, start - (start - HEADER) % self.frame)
        with open(self.path, "rb") as wav:
            wav.seek(start)
            data = wav.read(max(0, end - start))
        count = len(data) // self.frame
        values = struct.unpack(f"<{count * self.channels}h", data[:count * self.frame])
        return values[::self.channels]

    def first_sound(self, after, timeout):
        """(host time, byte offset) of the first non-silent sample after host time `after`, or (None, None)."""
        offset = self.offset_at(after)
        deadline = time.monotonic() + timeout
        while True:
            end = self.offset_at(stamp())
            if end > offset:
                with open(self.path, "rb") as wav:
                    wav.seek(offset)
                    data = wav.read(end - offset)
                usable = len(data) - len(data) % 2
                for index, sample in enumerate(struct.unpack(f"<{usable // 2}h", data[:usable])):
                    if abs(sample) > SILENCE:
                        found = offset + 2 * index
                        return self.time_of(found), found
                offset += usable
            if time.monotonic() > deadline:
                return None, None
            time.sleep(0.05)

    def window(self, at, seconds=0.2):
        """The first channel's samples of the `seconds` before host time `at` (waits until they are written)."""
        while stamp() < at + 0.1:
            time.sleep(0.05)
        end = self.offset_at(at)
        return self.samples(end - int(seconds * self.rate) * self.frame, end)

    def window_after(self, offset, skip=0.3, seconds=0.2):
        """Samples from `skip` s after a byte offset (past a fade-in), waiting until they are written."""
        start = offset + int(skip * self.rate) * self.frame
        end = start + int(seconds * self.rate) * self.frame
        deadline = time.monotonic() + 5
        while self.offset_at(stamp()) < end and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.samples(start, end)


def went_silent(capture, start, end):
    """The host time from which the capture stays silent until `end` (waits for it to be written); None if it
    was not silent for the last half second before `end`."""
    while stamp() < end + 0.1:
        time.sleep(0.05)
    first, last = capture.offset_at(start), capture.offset_at(end)
    with open(capture.path, "rb") as wav:
        wav.seek(first)
        data = wav.read(last - first)
    count = len(data) // 2
    samples = struct.unpack(f"<{count}h", data[:2 * count])
    loud = next((i for i in range(count - 1, -1, -1) if abs(samples[i]) > SILENCE), None)
    if loud is None:
        return start
    if last - (first + 2 * loud) < capture.rate * capture.frame // 2:
        return None
    return capture.time_of(first + 2 * loud)


def peak(samples):
    return max((abs(s) for s in samples), default=0)


def pitch(samples, rate=48000):
    """The frequency of a tone from its upward zero crossings, interpolated between samples; None if silent."""
    if peak(samples) <= 4 * SILENCE:
        return None
    crossings = [i + s0 / (s0 - s1) for i, (s0, s1) in enumerate(zip(samples, samples[1:])) if s0 < 0 <= s1]
    if len(crossings) < 3:
        return None
    return (len(crossings) - 1) * rate / (crossings[-1] - crossings[0])


def block_pitch(samples, rate=48000, block=0.02):
    """The median pitch of the 20 ms blocks that hold sound, or None: unlike `pitch` over the whole window, not
    pulled down by a silent stretch inside it (a DAC that runs fast leaves them: testlib/guest_timing)."""
    size = int(block * rate)
    heard = sorted(f for f in (pitch(samples[i:i + size], rate) for i in range(0, len(samples) - size + 1, size)) if f)
    return heard[len(heard) // 2] if heard else None


def sweep_position(frequency):
    """Seconds into the sweep's loop that play this pitch."""
    return None if frequency is None else (frequency - SWEEP_START) / SWEEP_SLOPE


def loop_diff(a, b):
    """a - b on the 30 s loop, in -15..15."""
    return (a - b + CYCLE / 2) % CYCLE - CYCLE / 2


def tone_change(capture, start, end, before, after, block=0.02):
    """(host time, byte offset, seconds of neither tone just before it) where the capture's pitch turns from
    `before` to `after` between host times start and end (20 ms blocks, each classed by its pitch within
    15 Hz), or (None, None, None)."""
    first = capture.offset_at(start)
    samples = capture.samples(first, capture.offset_at(end))
    size = int(block * capture.rate)
    classes = []
    for index in range(0, len(samples) - size, size):
        frequency = pitch(samples[index:index + size], capture.rate)
        near = lambda target: frequency is not None and abs(frequency - target) < 15
        classes.append("b" if near(before) else "a" if near(after) else "?")
    text = "".join(classes)
    # The change: the first run of "after" with no "before" following it, and the last "before" ahead of it.
    # Between them there may be blocks of neither: the two tones mixed in one block, or silence where the
    # guest's audio ran dry on a loaded host (QEMU: "Resetting rate control"), which the engine follows by
    # rejoining the live position, so the first "after" block still tells when the new spin is heard.
    start_after = next((i for i in range(len(text)) if text.startswith("a" * 10, i) and "b" not in text[i:]), None)
    last_before = text.rfind("b", 0, start_after) if start_after is not None else -1
    if last_before < 0 or start_after - last_before > 1 / block:
        return None, None, None
    offset = first + start_after * size * capture.frame
    return capture.time_of(offset), offset, (start_after - last_before - 1) * block


def keep_part(capture, start, out):
    """What a capture holds from host time `start` to now, as a WAV file of its own at `out` (the capture's
    own header has its sizes only once QEMU closes it). Its length in seconds; None if it holds nothing then."""
    try:
        size = os.path.getsize(capture.path)
    except OSError:
        return None
    first = capture.offset_at(start)
    end = size - (size - HEADER) % capture.frame
    if end <= first:
        return None
    with open(capture.path, "rb") as wav:
        wav.seek(first)
        data = wav.read(end - first)
    with wave.open(out, "wb") as kept:
        kept.setnchannels(capture.channels)
        kept.setsampwidth(2)
        kept.setframerate(capture.rate)
        kept.writeframes(data)
    return len(data) / capture.frame / capture.rate
