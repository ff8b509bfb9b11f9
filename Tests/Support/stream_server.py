#!/usr/bin/env python3
"""Fault-injecting Icecast/SHOUTcast-like stream server, for tests of internet-radio playback.

Usage: python3 Tests/Support/stream_server.py --mount /tone.mp3=FILE:audio/mpeg:16000 [--mount ...]
           [--port 0] [--metaint 8192] [--titles "A - One|B - Two"] [--title-seconds 3]
           [--burst-seconds 2] [--name NAME] [--genre GENRE] [--title-charset utf-8]
           [--icy-status-line] [--from-start] [--exit-on-stdin-eof]

Binds 127.0.0.1 only (port 0 = any free port; SO_REUSEADDR, so a restarted server takes the same port
at once), prints exactly one JSON line {"port": N, "mounts": [...]} to stdout when listening, then
serves until SIGTERM/SIGINT (or stdin EOF with --exit-on-stdin-eof). Python 3.11 stdlib only.

Mounts (--mount PATH=FILE:CONTENT_TYPE:BYTES_PER_SECOND, repeatable): FILE looped forever, paced at
BYTES_PER_SECOND in chunks of 1/20 s after a burst of --burst-seconds worth (Icecast's burst-on-connect).
Like a live station, a new listener joins at the mount's current position (a mount starts at byte 0
when the server starts; the burst is the 2 s before "now"), so a reconnect hears live audio, not the
start again; the position is not aligned to frames, as with Icecast. --from-start starts every
listener at byte 0 instead (deterministic output).
Response: "HTTP/1.0 200 OK" (or "ICY 200 OK" with --icy-status-line), Content-Type, icy-name,
icy-genre, icy-br (BYTES_PER_SECOND*8/1000), icy-pub, icy-description, no Content-Length; the body
ends only when the client goes away. HEAD gets the headers only.
ICY: a request with "Icy-MetaData: 1" gets "icy-metaint: N" and, after every N audio bytes, a
metadata block: one length byte L, then L*16 bytes "StreamTitle='...';" padded with NULs; L = 0 when
the title has not changed since this listener's last block (the first block always carries it).
The title rotates through --titles every --title-seconds (from server start, or from POST /_titles);
it is encoded in --title-charset (utf-8, or latin-1 to test a client's fallback).

Other paths:
  GET /playlist.pls, /playlist.m3u, /playlist.m3u8  a playlist: first a dead URL (a port nothing
      listens on), then the first mount (or ?mount=/name). .m3u8 is extended M3U (not HLS).
  GET /redirect?to=/name   302 to that path (default: the first mount).
  anything else: 404.

Control endpoints (paths starting with /_; never faulted, never logged):
  POST /_fault    a fault {"mode": M, "count": n, ...} or a JSON list of them, applied in order to the
                  next stream/playlist request(s) (count default 1; -1 = until changed). A POST replaces
                  the queue; {"mode": "none"} or [] clears it. An optional "path" limits a fault to
                  requests of that path (without the query). Modes:
                    halfopen            full response headers, then nothing; the socket stays open
                    stall_after bytes=n n audio bytes (as normal), then nothing; the socket stays open
                    garbage             headers, then random bytes forever at the paced rate (no ICY
                                        framing: the length bytes are random too; "framed": true keeps
                                        valid metadata blocks around random audio)
                    badmeta             audio up to the first metadata block, then a length byte of 255
                                        (claims 4080 bytes), a few bytes of it, then the connection closes
                                        (sent even when the client did not ask for metadata, with icy-metaint)
                    eof_after bytes=n   n audio bytes, then a clean close
                    refuse              reads the request, answers nothing, closes with a TCP reset
                    http_error status=s that status with a short text body (default 503)
  GET /_fault     the queue;  DELETE /_fault  clears it
  POST /_drop     {"how": "close" | "reset" | "stall"} (default close): every stream connection open now
                  ends at its next chunk: a clean close, a TCP reset, or (stall) it stays open and sends
                  nothing more, as a dead Wi-Fi link would. Later connections are not affected; so a test
                  queues a fault, then drops the current connection, and the client reconnects into it.
                  Answers {"how", "connections"} (how many were open).
  POST /_titles   {"titles": [...], "seconds": s}  replaces the titles (seconds optional) and restarts
                  the rotation at the first one now
  GET /_requests  [{"id","t","method","path","client","headers","fault","status","audio_bytes",
                   "meta_blocks","dropped","closed"}]: every non-control request, in order; headers lower-cased;
                  audio_bytes counts the audio (not metadata) sent so far; closed = time it ended or null.
                  DELETE clears it.
"""
import argparse, email.utils, json, math, os, random, select, socket, socketserver, struct, sys
import threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit
from lifetime import end_on_signal_or_parent_exit

MODES = {"halfopen", "stall_after", "garbage", "badmeta", "eof_after", "refuse", "http_error"}
DEAD_PORT = 9  # discard: nothing listens on 127.0.0.1:9 here


class Mount:
    def __init__(self, spec):
        path, sep, rest = spec.partition("=")
        parts = rest.rsplit(":", 2)
        if not sep or not path.startswith("/") or len(parts) != 3:
            raise ValueError(f"--mount {spec!r}: expected /NAME=FILE:CONTENT_TYPE:BYTES_PER_SECOND")
        self.path, (file, self.content_type, rate) = path, parts
        self.rate = int(rate)
        with open(file, "rb") as f:
            self.data = f.read()
        if not self.data or self.rate <= 0:
            raise ValueError(f"--mount {spec!r}: empty file or bad rate")


class State:
    def __init__(self, args):
        self.args, self.lock, self.stop = args, threading.Lock(), threading.Event()
        self.mounts = {m.path: m for m in (Mount(s) for s in args.mount)}
        self.first_mount = args.mount[0].partition("=")[0]
        self.started = time.monotonic()
        self.titles = [t for t in args.titles.split("|")] if args.titles else []
        self.title_seconds, self.titles_since = args.title_seconds, time.monotonic()
        self.faults, self.log, self.next_id = [], [], 1
        self.drop_generation, self.drop_how = 0, None  # POST /_drop

    def title(self):
        with self.lock:
            if not self.titles:
                return ""
            i = int((time.monotonic() - self.titles_since) / self.title_seconds)
            return self.titles[i % len(self.titles)]

    def take_fault(self, path):
        with self.lock:
            for fault in self.faults:
                if fault.get("path") in (None, path):
                    if fault["count"] > 0:
                        fault["count"] -= 1
                        if fault["count"] == 0:
                            self.faults.remove(fault)
                    return dict(fault)
        return None


def parse_fault(raw):
    if not isinstance(raw, dict) or "mode" not in raw:
        raise ValueError("a fault is an object with a 'mode'")
    if raw["mode"] not in MODES:
        raise ValueError(f"unknown mode {raw['mode']!r} (one of {', '.join(sorted(MODES))}, or none)")
    fault = dict(raw)
    fault["count"] = int(raw.get("count", 1))
    if fault["count"] == 0 or fault["count"] < -1:
        raise ValueError("count is a positive number or -1")
    if raw["mode"] in ("eof_after", "stall_after"):
        fault["bytes"] = int(raw["bytes"])
    if raw["mode"] == "http_error":
        fault["status"] = int(raw.get("status", 503))
    return fault


class Gone(Exception):
    """The listener went away (or the server is stopping)."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    state: State = None  # set in main()
    entry, generation = None, 0

    def log_message(self, *args):  # keep stderr quiet
        pass

    def version_string(self):
        return "Icecast 2.4.4"

    def handle(self):
        try:
            super().handle()
        except (ConnectionError, TimeoutError, Gone):
            pass
        finally:
            if self.entry is not None:
                with self.state.lock:
                    self.entry["closed"] = time.time()

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = lambda self: self.dispatch()

    # --- plumbing -----------------------------------------------------------------------
    def send_raw(self, data):
        if self.state.stop.is_set():
            raise Gone()
        try:
            self.connection.sendall(data)
        except OSError as e:
            raise Gone() from e

    def head_block(self, status, headers):
        reason = self.responses.get(status, ("",))[0]
        line = f"ICY {status} {reason}" if self.state.args.icy_status_line else f"HTTP/1.0 {status} {reason}"
        lines = [line, f"Server: {self.version_string()}", f"Date: {email.utils.formatdate(usegmt=True)}"]
        lines += [f"{k}: {v}" for k, v in headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def simple(self, status, content_type, body):
        if self.entry is not None:
            self.entry["status"] = status
        headers = [("Content-Type", content_type), ("Content-Length", str(len(body))), ("Connection", "close")]
        self.send_raw(self.head_block(status, headers) + (b"" if self.command == "HEAD" else body))

    def send_json(self, status, obj):
        self.simple(status, "application/json", json.dumps(obj).encode())

    def dropped(self):
        """How a POST /_drop since this connection began wants it to end ("close", "reset", "stall"), or None."""
        st = self.state
        if st.drop_generation <= self.generation:
            return None
        with st.lock:
            self.generation, how = st.drop_generation, st.drop_how
            self.entry["dropped"] = how
        return how

    def end(self, how):
        """Ends the stream as a POST /_drop asked."""
        if how == "stall":
            return self.wait_until_gone()
        if how == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()
            self.connection.close()
        raise Gone()

    def wait_until_gone(self):
        """Sends nothing more; returns when the client closes its end (or the server stops, or /_drop closes it)."""
        while not self.state.stop.is_set():
            how = self.dropped()
            if how in ("close", "reset"):
                return self.end(how)
            readable, _, _ = select.select([self.connection], [], [], 0.5)
            if readable:
                try:
                    if not self.connection.recv(4096):
                        return
                except OSError:
                    return

    # --- dispatch -----------------------------------------------------------------------
    def dispatch(self):
        url = urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if url.path.startswith("/_"):
            return self.control(url.path, body)
        headers = {}
        for k, v in self.headers.items():
            headers[k.lower()] = f"{headers[k.lower()]}, {v}" if k.lower() in headers else v
        st = self.state
        fault = st.take_fault(url.path)
        with st.lock:
            self.entry = {"id": st.next_id, "t": time.time(), "method": self.command, "path": self.path,
                          "client": self.client_address[1], "headers": headers,
                          "fault": fault["mode"] if fault else None, "status": None,
                          "audio_bytes": 0, "meta_blocks": 0, "dropped": None, "closed": None}
            st.next_id += 1
            st.log.append(self.entry)
        mode = fault["mode"] if fault else None
        if mode == "refuse":
            self.close_connection = True
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()  # drop the makefile reference so close() really closes: a reset
            self.connection.close()
            raise Gone()
        if mode == "http_error":
            return self.simple(fault["status"], "text/plain", f"injected error {fault['status']}\n".encode())
        if url.path in ("/playlist.pls", "/playlist.m3u", "/playlist.m3u8"):
            return self.playlist(url)
        if url.path == "/redirect":
            return self.redirect(parse_qs(url.query).get("to", [self.state.first_mount])[0])
        mount = st.mounts.get(url.path)
        if mount is None:
            return self.simple(404, "text/plain", b"The file you requested could not be found\n")
        self.stream(mount, fault)

    def redirect(self, target):
        if self.entry is not None:
            self.entry["status"] = 302
        headers = [("Location", target), ("Content-Length", "0"), ("Connection", "close")]
        self.send_raw(self.head_block(302, headers))

    def playlist(self, url):
        host = f"127.0.0.1:{self.server.server_port}"
        target = parse_qs(url.query).get("mount", [self.state.first_mount])[0]
        dead, live = f"http://127.0.0.1:{DEAD_PORT}/dead.mp3", f"http://{host}{target}"
        if url.path.endswith(".pls"):
            text = (f"[playlist]\nNumberOfEntries=2\nFile1={dead}\nTitle1=Dead entry\nLength1=-1\n"
                    f"File2={live}\nTitle2=Live entry\nLength2=-1\nVersion=2\n")
            return self.simple(200, "audio/x-scpls", text.encode())
        if url.path.endswith(".m3u8"):
            text = f"#EXTM3U\n#EXTINF:-1,Dead entry\n{dead}\n#EXTINF:-1,Live entry\n{live}\n"
        else:
            text = f"{dead}\n{live}\n"
        return self.simple(200, "audio/x-mpegurl", text.encode())

    # --- the stream ---------------------------------------------------------------------
    def stream(self, mount, fault):
        st, args = self.state, self.state.args
        mode = fault["mode"] if fault else None
        icy = self.headers.get("Icy-MetaData", "").strip() == "1" or mode == "badmeta"
        headers = [("Content-Type", mount.content_type), ("Cache-Control", "no-cache, no-store"),
                   ("Expires", "Mon, 26 Jul 1997 05:00:00 GMT"), ("Pragma", "no-cache"),
                   ("icy-name", args.name), ("icy-genre", args.genre), ("icy-br", str(mount.rate * 8 // 1000)),
                   ("icy-description", "Playola test stream"), ("icy-pub", "0")]
        if icy:
            headers.append(("icy-metaint", str(args.metaint)))
        self.entry["status"] = 200
        self.generation = st.drop_generation
        self.send_raw(self.head_block(200, headers))
        if self.command == "HEAD":
            return
        if mode == "halfopen":
            return self.wait_until_gone()

        data, rate, n = mount.data, mount.rate, len(mount.data)
        if args.from_start:
            pos = 0
        else:
            pos = max(0, int((time.monotonic() - st.started) * rate) - int(args.burst_seconds * rate)) % n
        limit = fault["bytes"] if mode in ("eof_after", "stall_after") else None
        garbage, raw_garbage = mode == "garbage", mode == "garbage" and not fault.get("framed")
        chunk = max(1, rate // 20)
        since_meta, last_title, sent = 0, None, 0
        t0, burst = time.monotonic(), int(args.burst_seconds * rate)
        while True:
            if how := self.dropped():
                return self.end(how)
            allowed = burst + int((time.monotonic() - t0) * rate) - sent
            if allowed <= 0:
                if st.stop.wait(min(0.05, -allowed / rate + 0.001)):
                    raise Gone()
                continue
            size = min(chunk, allowed)
            if limit is not None:
                size = min(size, limit - sent)
                if size <= 0:
                    if mode == "stall_after":
                        return self.wait_until_gone()
                    return  # eof_after: clean close
            if raw_garbage:
                self.send_raw(random.randbytes(size))
                sent += size
                self.entry["audio_bytes"] = sent
                continue
            out = []
            while size > 0:
                if icy and since_meta == args.metaint:
                    if mode == "badmeta":
                        self.entry["audio_bytes"], self.entry["meta_blocks"] = sent, 1
                        self.send_raw(b"".join(out) + b"\xff" + b"StreamTitle='cut short")
                        return
                    title = st.title()
                    out.append(self.meta_block(None if title == last_title else title))
                    last_title, since_meta = title, 0
                    self.entry["meta_blocks"] += 1
                take = size if not icy else min(size, args.metaint - since_meta)
                if garbage:
                    piece = random.randbytes(take)
                else:
                    piece = data[pos:pos + take]
                    if len(piece) < take:
                        piece += data[:take - len(piece)]
                    pos = (pos + take) % n
                out.append(piece)
                size -= take
                since_meta += take
                sent += take
            self.send_raw(b"".join(out))
            self.entry["audio_bytes"] = sent

    def meta_block(self, title):
        if title is None:
            return b"\x00"
        text = ("StreamTitle='" + title + "';").encode(self.state.args.title_charset, "replace")
        blocks = min(255, math.ceil(len(text) / 16))
        return bytes([blocks]) + text[:blocks * 16].ljust(blocks * 16, b"\0")

    # --- control ------------------------------------------------------------------------
    def control(self, path, body):
        st, cmd = self.state, self.command
        try:
            req = json.loads(body) if body else None
            if path in ("/_fault", "/_faults") and cmd == "POST":
                items = req if isinstance(req, list) else [req]
                faults = [parse_fault(f) for f in items if not (isinstance(f, dict) and f.get("mode") == "none")]
                with st.lock:
                    st.faults = faults
                    return self.send_json(200, {"faults": st.faults})
            if path in ("/_fault", "/_faults") and cmd in ("GET", "DELETE"):
                with st.lock:
                    if cmd == "DELETE":
                        st.faults = []
                    return self.send_json(200, {"faults": st.faults})
            if path == "/_drop" and cmd == "POST":
                how = (req or {}).get("how", "close")
                if how not in ("close", "reset", "stall"):
                    raise ValueError("how is close, reset or stall")
                with st.lock:
                    st.drop_generation, st.drop_how = st.drop_generation + 1, how
                    live = sum(1 for e in st.log if e["closed"] is None and e["status"] == 200)
                return self.send_json(200, {"how": how, "connections": live})
            if path == "/_titles" and cmd == "POST":
                titles = [str(t) for t in req["titles"]]
                with st.lock:
                    st.titles, st.titles_since = titles, time.monotonic()
                    st.title_seconds = float(req.get("seconds", st.title_seconds))
                    return self.send_json(200, {"titles": st.titles, "seconds": st.title_seconds})
            if path == "/_requests" and cmd in ("GET", "DELETE"):
                with st.lock:
                    if cmd == "DELETE":
                        st.log.clear()
                    out = json.dumps(st.log).encode()
                return self.simple(200, "application/json", out)
            return self.send_json(404, {"message": "Unknown control endpoint"})
        except (ValueError, KeyError, TypeError) as e:
            return self.send_json(400, {"message": f"bad control request: {e}"})


class Server(ThreadingHTTPServer):
    daemon_threads, block_on_close = True, False  # never wait for stalled handlers
    allow_reuse_address = True  # SO_REUSEADDR: a restarted server takes the same port at once
    request_queue_size = 64

    def server_bind(self):  # skip HTTPServer's getfqdn() reverse lookup
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, Gone)):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description="Fault-injecting Icecast/SHOUTcast-like stream server")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--mount", action="append", required=True, metavar="/NAME=FILE:CONTENT_TYPE:BYTES_PER_SECOND")
    ap.add_argument("--metaint", type=int, default=8192)
    ap.add_argument("--titles", default="Artist One - Song One|Artist Two - Song Two|Artist Three - Song Three")
    ap.add_argument("--title-seconds", type=float, default=3.0)
    ap.add_argument("--title-charset", default="utf-8")
    ap.add_argument("--burst-seconds", type=float, default=2.0)
    ap.add_argument("--name", default="Playola Test Stream")
    ap.add_argument("--genre", default="Test")
    ap.add_argument("--icy-status-line", action="store_true", help='answer "ICY 200 OK" as SHOUTcast v1 does')
    ap.add_argument("--from-start", action="store_true", help="every listener starts at byte 0 of the file")
    ap.add_argument("--exit-on-stdin-eof", action="store_true", help="exit when standard input closes")
    args = ap.parse_args()
    if args.metaint <= 0 or args.title_seconds <= 0:
        ap.error("--metaint and --title-seconds must be positive")
    try:
        Handler.state = State(args)
    except (OSError, ValueError) as e:
        ap.error(str(e))

    def on_signal():
        raise SystemExit(0)
    end_on_signal_or_parent_exit(on_signal, lambda: os._exit(0), args.exit_on_stdin_eof)
    server = Server(("127.0.0.1", args.port), Handler)
    print(json.dumps({"port": server.server_address[1], "mounts": list(Handler.state.mounts)}), flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        Handler.state.stop.set()
        server.server_close()


if __name__ == "__main__":
    main()
