#!/usr/bin/env python3
"""Live HLS radio made by ffmpeg's own HLS muxer, served on 127.0.0.1 with faults, for tests.

Usage: python3 Tests/Support/hls_server.py [--port 0] [--exit-on-stdin-eof]

Starts one ffmpeg per variant, each encoding a 0.25-amplitude sine in real time (-re) into a live playlist
of 2 s segments (-hls_time 2 -hls_list_size 6 -hls_flags delete_segments), in a temporary directory:
  /ts-aac/live.m3u8     MPEG-TS segments, AAC-LC 128 kbps, 44.1 kHz stereo, 600 Hz
  /ts-mp3/live.m3u8     MPEG-TS segments, MP3 128 kbps, 44.1 kHz stereo, 700 Hz
  /fmp4-aac/live.m3u8   fragmented MP4 segments (EXT-X-MAP init.mp4), AAC-LC, 48 kHz stereo, 800 Hz
  /fmp4-mp3/live.m3u8   fragmented MP4 segments, MP3, 44.1 kHz stereo, 900 Hz
  /master.m3u8          a master playlist: a video+audio variant (BANDWIDTH 2000000, avc1 + mp4a) that
                        points at /ts-mp3, and an audio-only one (BANDWIDTH 140000, mp4a) at /ts-aac
Once every variant has 3 segments, prints one JSON line {"port": N, "variants": [...]} and serves until
SIGTERM/SIGINT (or stdin EOF with --exit-on-stdin-eof).

Control (POST, JSON body; each applies to the variant named):
  /_segment404   {"variant": V, "count": n}  the next n segment requests of V get 404 (n=1: the
                 player's retry succeeds; n=2: that segment is lost)
  /_stall        {"variant": V, "seconds": s} V's playlist is served as it is now for s seconds
  /_discontinuity {"variant": V}             the next segment V adds is marked EXT-X-DISCONTINUITY
GET /_requests?variant=V: the paths requested of V, in order (a JSON list).
Hostile forms of each variant's live playlist:
  /V/big.m3u8    the live playlist with 100 000 segments of 2 s before its own (14 MB), which are never
                 there: a live join plays only the last ones
  /V/fast.m3u8   the live playlist with a target duration of 1 ms
  /big-master.m3u8  a master playlist of one audio-only variant, /fmp4-mp3/big.m3u8
Python 3.11 stdlib only; needs ffmpeg.
"""
import argparse, http.server, json, os, re, shutil, socketserver, subprocess, sys, tempfile, threading, time
from lifetime import end_on_signal_or_parent_exit

VARIANTS = {
    "ts-aac": (["-c:a", "aac", "-b:a", "128k", "-ar", "44100"], "mpegts", 600),
    "ts-mp3": (["-c:a", "libmp3lame", "-b:a", "128k", "-ar", "44100"], "mpegts", 700),
    "fmp4-aac": (["-c:a", "aac", "-b:a", "128k", "-ar", "48000"], "fmp4", 800),
    "fmp4-mp3": (["-c:a", "libmp3lame", "-b:a", "128k", "-ar", "44100"], "fmp4", 900),
}
MASTER = """#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.42e01e,mp4a.40.2",RESOLUTION=640x360
ts-mp3/live.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=140000,CODECS="mp4a.40.2"
ts-aac/live.m3u8
"""

BIG_MASTER = """#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=140000,CODECS="mp4a.40.34"
fmp4-mp3/big.m3u8
"""


class State:
    def __init__(self, root):
        self.root, self.lock = root, threading.Lock()
        self.missing = {v: 0 for v in VARIANTS}       # 404s still to give
        self.frozen = {}                              # variant: (until, playlist text)
        self.discontinuities = {v: set() for v in VARIANTS}
        self.requests = {v: [] for v in VARIANTS}

    def playlist(self, variant):
        path = os.path.join(self.root, variant, "live.m3u8")
        with self.lock:
            frozen = self.frozen.get(variant)
            if frozen and time.monotonic() < frozen[0]:
                return frozen[1]
        with open(path) as f:
            text = f.read()
        marked = self.discontinuities[variant]
        out = []
        for line in text.splitlines():
            number = segment_number(line)
            if number is not None and number in marked:
                # the tag goes before the segment's EXTINF
                out.insert(len(out) - 1, "#EXT-X-DISCONTINUITY")
            out.append(line)
        return "\n".join(out) + "\n"


BIG_PADDING = 100_000


def big(text):
    """`text` with BIG_PADDING segments before its own: its media sequence is kept, so its own segments keep
    numbers of their own, BIG_PADDING above what the server numbers them."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("#EXTINF"))
    return "\n".join(lines[:first]) + "\n" + PADDING_TEXT + "\n".join(lines[first:]) + "\n"


PADDING_TEXT = "".join(f"#EXTINF:2.000,\nold/{i:0>120}.ts\n" for i in range(BIG_PADDING))


def fast(text):
    return re.sub(r"#EXT-X-TARGETDURATION:\d+", "#EXT-X-TARGETDURATION:0.001", text)


def segment_number(line):
    match = re.fullmatch(r"seg(\d+)\.(ts|m4s)", line.strip())
    return int(match.group(1)) if match else None


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, content_type):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path == "/_requests":
                variant = self.path.split("variant=", 1)[-1]
                with state.lock:
                    body = json.dumps(state.requests.get(variant, [])).encode()
                return self.send(200, body, "application/json")
            if path == "/master.m3u8":
                return self.send(200, MASTER.encode(), "application/vnd.apple.mpegurl")
            if path == "/big-master.m3u8":
                return self.send(200, BIG_MASTER.encode(), "application/vnd.apple.mpegurl")
            parts = path.strip("/").split("/")
            if len(parts) != 2 or parts[0] not in VARIANTS or ".." in parts[1]:
                return self.send(404, b"not found\n", "text/plain")
            variant, name = parts
            with state.lock:
                state.requests[variant].append(path)
            forms = {"live.m3u8": lambda text: text, "big.m3u8": big, "fast.m3u8": fast}
            if name in forms:
                return self.send(200, forms[name](state.playlist(variant)).encode(), "application/vnd.apple.mpegurl")
            if segment_number(name) is not None:
                with state.lock:
                    if state.missing[variant] > 0:
                        state.missing[variant] -= 1
                        return self.send(404, b"gone\n", "text/plain")
            try:
                with open(os.path.join(state.root, variant, name), "rb") as f:
                    body = f.read()
            except OSError:
                return self.send(404, b"not found\n", "text/plain")
            kind = "video/mp2t" if name.endswith(".ts") else "video/mp4"
            self.send(200, body, kind)

        do_HEAD = do_GET

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            variant = request.get("variant")
            if variant not in VARIANTS:
                return self.send(400, b"unknown variant\n", "text/plain")
            with state.lock:
                if self.path == "/_segment404":
                    state.missing[variant] = int(request.get("count", 1))
                elif self.path == "/_stall":
                    text = open(os.path.join(state.root, variant, "live.m3u8")).read()
                    state.frozen[variant] = (time.monotonic() + float(request["seconds"]), text)
                elif self.path == "/_discontinuity":
                    text = open(os.path.join(state.root, variant, "live.m3u8")).read()
                    numbers = [n for n in map(segment_number, text.splitlines()) if n is not None]
                    state.discontinuities[variant].add((max(numbers) if numbers else -1) + 1)
                else:
                    return self.send(404, b"unknown control\n", "text/plain")
            self.send(200, b"{}", "application/json")

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--exit-on-stdin-eof", action="store_true")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="playola-hls-")
    processes = []
    stop = threading.Event()
    try:
        for variant, (codec, kind, tone) in VARIANTS.items():
            directory = os.path.join(root, variant)
            os.mkdir(directory)
            rate = codec[codec.index("-ar") + 1]
            wave = f"0.25*sin(2*PI*{tone}*t)"
            extension = "ts" if kind == "mpegts" else "m4s"
            processes.append(subprocess.Popen(
                ["setpriv", "--pdeathsig", "KILL", "ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi",
                 "-i", f"aevalsrc={wave}|{wave}:s={rate}", *codec, "-f", "hls", "-hls_time", "2",
                 "-hls_list_size", "6", "-hls_flags", "delete_segments", "-hls_segment_type", kind,
                 "-hls_segment_filename", os.path.join(directory, f"seg%d.{extension}"),
                 "-hls_fmp4_init_filename", "init.mp4", os.path.join(directory, "live.m3u8")],
                stdin=subprocess.DEVNULL, stderr=open(os.path.join(root, f"{variant}.log"), "wb")))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready = 0
            for variant in VARIANTS:
                try:
                    with open(os.path.join(root, variant, "live.m3u8")) as f:
                        ready += sum(1 for line in f if segment_number(line) is not None) >= 3
                except OSError:
                    pass
            if ready == len(VARIANTS):
                break
            for process in processes:
                if process.poll() is not None:
                    sys.exit(f"hls_server: an ffmpeg exited: {open(os.path.join(root, 'ts-aac.log')).read()}")
            time.sleep(0.2)
        else:
            sys.exit("hls_server: the variants did not reach 3 segments in 30 s")
        server = Server(("127.0.0.1", args.port), make_handler(State(root)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(json.dumps({"port": server.server_address[1], "variants": list(VARIANTS)}), flush=True)
        end_on_signal_or_parent_exit(stop.set, stop.set, args.exit_on_stdin_eof)
        stop.wait()
    finally:
        for process in processes:
            process.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
