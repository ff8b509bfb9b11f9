"""The fake Playola API (Tests/Support/fake_playola.py) on the host, serving the test's Playola station."""
import array, http.client, json, math, os, subprocess, sys, time, wave

from .audio import HEADER
from .log import log
from .target import ROOT, STATION_ID, TOKEN

FAKE_PLAYOLA = os.path.join(ROOT, "Tests", "Support", "fake_playola.py")
# Spin k is a SPIN_SECONDS tone of 400 + 30 * (k mod 40) Hz: any 40 spins in a row (10 minutes, the player's
# lookahead) are told apart by pitch. 8 kHz mono WAV keeps the downloads small.
SPIN_SECONDS, SPIN_RATE = 15, 8000
# The player corrects a wrong clock by the server's Date header, which is truncated to the second and read
# once the response is in: the schedule plays late by that fraction plus the request's latency (a TCG guest
# on a loaded host: up to about 0.7 s), plus the audio path. Measured +1.14 s and +1.75 s: 2 s allowed.
PLAYOLA_TOLERANCE = 2.0


class FakeAPI:
    """Tests/Support/fake_playola.py on the host's 127.0.0.1 serving the test's Playola station: spins of
    SPIN_SECONDS back to back from `anchor` (a whole second of the host's wall clock), spin k a tone of its own
    frequency; the schedule, rewritten before each use, covers the lookahead from then."""

    def __init__(self, directory):
        self.directory = directory
        for folder in ("stations", "files"):
            os.makedirs(os.path.join(directory, folder), exist_ok=True)
        self.anchor = float(int(time.time()) - 120)
        self.process = subprocess.Popen([sys.executable, FAKE_PLAYOLA, "--root", directory, "--port", "0", "--exit-on-stdin-eof"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.process.stdout.readline().decode()
        if not line.startswith("PORT "):
            raise RuntimeError(f"fake_playola.py did not start: {line!r}")
        self.port = int(line.split()[1])
        self.control("POST", "/_tokens", {"valid": [TOKEN]})
        log(f"fake Playola API on 127.0.0.1:{self.port} (the guest's http://10.0.2.100)")

    def control(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request(method, path, body=json.dumps(body) if body is not None else None)
        reply = json.loads(connection.getresponse().read() or b"null")
        connection.close()
        return reply

    @staticmethod
    def frequency(k):
        return 400.0 + 30.0 * (k % 40)

    def airtime(self, k):
        return self.anchor + k * SPIN_SECONDS

    def spin_at(self, wall):
        return int((wall - self.anchor) // SPIN_SECONDS)

    def file_bytes(self):
        return HEADER + SPIN_SECONDS * SPIN_RATE * 2

    def publish(self):
        """The schedule from the spin playing now to 11 minutes on, and the files it names."""
        first = self.spin_at(time.time())
        spins = []
        for k in range(first, first + (660 // SPIN_SECONDS)):
            name = f"spin{k}.wav"
            path = os.path.join(self.directory, "files", name)
            if not os.path.exists(path):
                self.write_tone(path, self.frequency(k))
            airtime = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self.airtime(k)))
            spins.append({"id": f"spin-{k}", "stationId": STATION_ID, "airtime": airtime, "startingVolume": 1, "fades": [],
                          "audioBlock": {"id": f"block-{k}", "title": f"spin {k}", "artist": "image/test",
                                         "durationMS": SPIN_SECONDS * 1000, "endOfMessageMS": SPIN_SECONDS * 1000,
                                         "downloadUrl": f"http://10.0.2.100/files/{name}"}})
        with open(os.path.join(self.directory, "stations", STATION_ID + ".json"), "w") as f:
            json.dump(spins, f)

    @staticmethod
    def write_tone(path, frequency):
        step = 2 * math.pi * frequency / SPIN_RATE
        samples = array.array("h", (int(12000 * math.sin(step * n)) for n in range(SPIN_SECONDS * SPIN_RATE)))
        if sys.byteorder != "little":
            samples.byteswap()
        with wave.open(path, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(SPIN_RATE)
            out.writeframes(samples.tobytes())

    def requests(self):
        return self.control("GET", "/_requests")

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)
