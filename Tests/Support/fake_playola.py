#!/usr/bin/env python3
"""Fault-injecting fake of the Playola API and its audio file server, for tests.

Usage: python3 Tests/Support/fake_playola.py --root DIR [--port 0] [--tls-cert CERT.pem --tls-key KEY.pem]
                                             [--faults JSON]

Binds 127.0.0.1 only (port 0 = any free port), prints exactly one line
"PORT <n>" to stdout, then serves until SIGTERM/SIGINT; with --tls-cert and --tls-key, over TLS (https)
with that certificate (a client that cannot trust it can still be given its faults at the start:
--faults, rules as POST /_faults takes them). Python 3.11 stdlib only.

Data (re-read on every request):
  DIR/stations/<stationId>.json   schedule body (JSON array, served as-is)
  DIR/files/<name>                audio files

API endpoints (faults apply; every request is logged):
  GET  /v1/stations/<id>/schedule?...  200 file as application/json (gzip if
                                       Accept-Encoding has gzip); 404 {"message":"Station not found"}
  GET|HEAD /files/<name>               200 file, or 206 for Range "bytes=N-" / "bytes=N-M";
                                       416 if unsatisfiable; 404 if absent
  POST /v1/listeningSessions           {"deviceId","stationId"}  Bearer token required:
  POST /v1/listeningSessions/end       {"deviceId"}              200 {} or 401 {"message":"Unauthorized"}
Every response has a Date header = real UTC now + clock offset.

Control endpoints (paths starting with /_; never faulted, never logged):
  POST /_faults    JSON list of rules, appended. Rule: {"match": regex searched in path+query,
                   "method": optional, "times": n (default 1, -1 = forever), "action": A}
                   A = {"status": 500} | "cut_half" | "reset_mid" | "stall" | "garbage" | "delay"
                     | "chunked_overflow" | "redirect" | "trickle" | "raw".
                   Parameters "seconds" (stall default 60, delay default 1; trickle: between bytes, default 0.5)
                   and "after_headers" (stall) may sit on the rule or in a dict action, e.g.
                   {"type": "stall", "seconds": 3}. chunked_overflow: the headers say "Content-Length:
                   <length>" (default 1000) and "Transfer-Encoding: chunked", then "bytes" (default 200 MB) of
                   body follow in chunks. redirect: "code" (default 302) to "location". trickle: the real headers, then
                   the body one byte at a time. raw: "head" (status line and header fields, sent as given,
                   then an empty line), then "bytes" bytes of body, then the connection is closed.
  GET  /_faults    active rules;   DELETE /_faults  clears them
  POST /_tokens    {"valid": [...]} replaces the valid bearer-token set (initially empty)
  POST /_clock     {"offset": seconds}
  POST /_bandwidth {"bytes_per_second": n} (0: unlimited, the default): the bodies of /files share one link
                   of that speed, 16 KiB at a time in turn, as downloads over one slow line do
  GET  /_requests  log: [{"t","method","path","headers","body","status","action"}, and "end": when the whole
                   body was written];  DELETE clears it
"""
import argparse, email.utils, gzip, json, os, random, re, socket, socketserver
import ssl, struct, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit
from lifetime import end_on_signal_or_parent_exit

ACTIONS = {"status", "cut_half", "reset_mid", "stall", "garbage", "delay", "chunked_overflow", "redirect", "trickle",
           "raw"}
CONTENT_TYPES = {".m4a": "audio/mp4", ".mp3": "audio/mpeg"}
STATION_RE = re.compile(r"^/v1/stations/([^/]+)/schedule$")


class State:
    def __init__(self, root):
        self.root, self.lock, self.stop = root, threading.Lock(), threading.Event()
        self.faults, self.tokens, self.offset, self.log = [], set(), 0.0, []
        self.bandwidth, self.link_free = 0, 0.0

    def through_link(self, write, data):
        """Writes data in pieces, each taking its turn on the shared link of self.bandwidth bytes/s."""
        for at in range(0, len(data), 16384):
            piece = data[at:at + 16384]
            with self.lock:
                done = max(time.monotonic(), self.link_free) + len(piece) / self.bandwidth
                self.link_free = done
            if self.stop.wait(max(0.0, done - time.monotonic())):
                return
            write(piece)

    def take_fault(self, method, path):
        with self.lock:
            for rule in self.faults:
                if rule["times"] != 0 and (rule["method"] in (None, method)) and rule["re"].search(path):
                    if rule["times"] > 0:
                        rule["times"] -= 1
                    if rule["times"] == 0:  # exhausted rules drop out of the list
                        self.faults.remove(rule)
                    return rule
        return None


def parse_rule(raw):
    if not isinstance(raw, dict) or "match" not in raw or "action" not in raw:
        raise ValueError("rule needs 'match' and 'action'")
    act, params = raw["action"], dict(raw)
    if isinstance(act, dict):
        params.update(act)
        name = "status" if "status" in act else act.get("type") or act.get("name")
    else:
        name = act
    if name not in ACTIONS:
        raise ValueError(f"unknown action {name!r}")
    return {"match": raw["match"], "re": re.compile(raw["match"]), "name": name,
            "method": raw["method"].upper() if raw.get("method") else None,
            "times": int(raw.get("times", 1)), "status": int(params.get("status", 500)),
            "seconds": float(params.get("seconds", {"stall": 60, "trickle": 0.5}.get(name, 1))),
            "after_headers": bool(params.get("after_headers", False)),
            "length": int(params.get("length", 1000)), "bytes": int(params.get("bytes", 200 << 20)),
            "location": str(params.get("location", "")), "head": str(params.get("head", "")),
            "code": int(params.get("code", 302))}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: State = None  # set in main()

    def log_message(self, *args):  # keep stderr quiet
        pass

    def version_string(self):
        return "FakePlayola/1.0"

    def date_time_string(self, timestamp=None):
        return email.utils.formatdate(time.time() + self.state.offset, usegmt=True)

    def handle(self):
        try:
            super().handle()
        except (ConnectionError, TimeoutError, ssl.SSLError):
            pass

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = lambda self: self.dispatch()

    # --- plumbing -----------------------------------------------------------------------
    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = b""
            while (size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)):
                data += self.rfile.read(size)
                self.rfile.readline()
            while self.rfile.readline().strip():  # trailers
                pass
            return data
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def emit(self, status, headers, body, limit=None):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.entry is not None:
            self.entry["status"] = status
        if self.command != "HEAD":
            body = body if limit is None else body[:limit]
            if self.state.bandwidth and self.path.startswith("/files/"):
                self.state.through_link(self.wfile.write, body)
            else:
                self.wfile.write(body)
        if self.entry is not None:
            self.entry["end"] = time.time()

    def send_json(self, status, obj, extra=()):
        self.emit(status, [("Content-Type", "application/json"), *extra], json.dumps(obj).encode())

    # --- dispatch -----------------------------------------------------------------------
    def dispatch(self):
        self.entry = None
        body, path = self.read_body(), urlsplit(self.path).path
        if path.startswith("/_"):
            return self.control(path, body)
        try:
            logged = json.loads(body) if body else None
        except ValueError:
            logged = body.decode("utf-8", "replace")
        headers = {}
        for k, v in self.headers.items():
            headers[k.lower()] = f"{headers[k.lower()]}, {v}" if k.lower() in headers else v
        fault = self.state.take_fault(self.command, self.path)
        self.entry = {"t": time.time(), "method": self.command, "path": self.path, "headers": headers,
                      "body": logged, "status": None, "action": fault["name"] if fault else None}
        with self.state.lock:
            self.state.log.append(self.entry)
        if fault and fault["name"] == "status":
            return self.send_json(fault["status"], {"message": "injected"})
        if fault and fault["name"] == "delay":
            self.state.stop.wait(fault["seconds"])
        if fault and fault["name"] == "redirect":
            return self.emit(fault["code"], [("Location", fault["location"])], b"")
        if fault and fault["name"] == "chunked_overflow":
            return self.chunked_overflow(fault)
        if fault and fault["name"] == "raw":
            try:
                self.wfile.write(fault["head"].encode() + b"\r\n\r\n" + b"\xff" * fault["bytes"])
                self.wfile.flush()
            except (ConnectionError, OSError):
                pass
            self.close_connection = True
            return
        status, hdrs, payload = self.route(path, body, garbage=bool(fault and fault["name"] == "garbage"))
        name = fault["name"] if fault else None
        if name == "stall":
            if fault["after_headers"]:
                self.emit(status, hdrs, payload, limit=0)
                self.wfile.flush()
            self.state.stop.wait(fault["seconds"])
            self.close_connection = True
        elif name == "trickle":
            self.emit(status, hdrs, payload, limit=0)
            for i in range(len(payload)):
                self.wfile.write(payload[i:i + 1])
                self.wfile.flush()
                if self.state.stop.wait(fault["seconds"]):
                    break
            self.close_connection = True
        elif name in ("cut_half", "reset_mid"):
            self.emit(status, hdrs, payload, limit=len(payload) // 2)
            self.wfile.flush()
            self.close_connection = True
            if name == "reset_mid":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.rfile.close()  # drop the makefile reference so close() really closes
                self.connection.close()
        else:
            self.emit(status, hdrs, payload)

    def chunked_overflow(self, fault):
        """A Content-Length the body does not keep to: chunked, and far longer."""
        self.send_response(200)
        self.send_header("Content-Type", "audio/mpeg")
        self.send_header("Content-Length", str(fault["length"]))
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.entry["status"] = 200
        chunk, sent = b"\xff" * 65536, 0
        try:
            while sent < fault["bytes"] and not self.state.stop.is_set():
                piece = chunk[:min(len(chunk), fault["bytes"] - sent)]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
            self.wfile.write(b"0\r\n\r\n")
        except (ConnectionError, OSError):
            pass
        self.entry["sent"] = sent
        self.close_connection = True

    def route(self, path, body, garbage):
        """Return (status, headers, body) of the normal (or garbage) response."""
        if m := STATION_RE.match(path):
            if self.command in ("GET", "HEAD"):
                return self.schedule(unquote(m.group(1)), garbage)
        elif path.startswith("/files/"):
            if self.command in ("GET", "HEAD"):
                return self.file(unquote(path[len("/files/"):]), garbage)
        elif path in ("/v1/listeningSessions", "/v1/listeningSessions/end") and self.command == "POST":
            auth = self.headers.get("Authorization", "")
            with self.state.lock:
                ok = auth.startswith("Bearer ") and auth[7:].strip() in self.state.tokens
            return self.jsonr(200, {}) if ok else self.jsonr(401, {"message": "Unauthorized"})
        return self.jsonr(404, {"message": "Not found"})

    @staticmethod
    def jsonr(status, obj):
        return status, [("Content-Type", "application/json")], json.dumps(obj).encode()

    def safe_path(self, sub, name):
        if not name or "/" in name or "\\" in name or name.startswith(".") or "\0" in name:
            return None
        full = os.path.join(self.state.root, sub, name)
        return full if os.path.isfile(full) else None

    def schedule(self, station_id, garbage):
        full = self.safe_path("stations", station_id + ".json")
        if full is None:
            return self.jsonr(404, {"message": "Station not found"})
        with open(full, "rb") as f:
            data = b'{"not": valid json' if garbage else f.read()
        hdrs = [("Content-Type", "application/json"), ("Vary", "Accept-Encoding")]
        if "gzip" in self.headers.get("Accept-Encoding", "").lower():
            data = gzip.compress(data, mtime=0)
            hdrs.append(("Content-Encoding", "gzip"))
        return 200, hdrs, data

    def file(self, name, garbage):
        full = self.safe_path("files", name)
        if full is None:
            return self.jsonr(404, {"message": "File not found"})
        size = os.path.getsize(full)
        hdrs = [("Content-Type", CONTENT_TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream")),
                ("Accept-Ranges", "bytes"), ("Last-Modified", email.utils.formatdate(os.path.getmtime(full), usegmt=True))]
        status, start, end = 200, 0, size - 1
        m = re.fullmatch(r"\s*bytes=(\d+)-(\d*)\s*", self.headers.get("Range", ""))
        if m and (not m.group(2) or int(m.group(2)) >= int(m.group(1))):  # else: ignore the header
            start = int(m.group(1))
            end = min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
            if start >= size:
                return 416, [("Content-Range", f"bytes */{size}")] + hdrs, b""
            status = 206
            hdrs.append(("Content-Range", f"bytes {start}-{end}/{size}"))
        # Only the bytes asked for are read: a client streaming a large file (RAUC, an update bundle) asks
        # for it a range at a time.
        with open(full, "rb") as f:
            f.seek(start)
            data = f.read(end + 1 - start)
        if garbage:  # same status, headers and length; random content
            data = random.randbytes(len(data))
        return status, hdrs, data

    # --- control ------------------------------------------------------------------------
    def control(self, path, body):
        st, cmd = self.state, self.command
        try:
            req = json.loads(body) if body else None
            if path == "/_faults" and cmd == "POST":
                rules = [parse_rule(r) for r in (req if isinstance(req, list) else [req])]
                with st.lock:
                    st.faults.extend(rules)
                    return self.send_json(200, {"active": len(st.faults)})
            if path == "/_faults" and cmd in ("GET", "DELETE"):
                with st.lock:
                    if cmd == "DELETE":
                        st.faults.clear()
                    out = [{k: v for k, v in r.items() if k != "re"} for r in st.faults]
                return self.send_json(200, out)
            if path == "/_tokens" and cmd == "POST":
                with st.lock:
                    st.tokens = set(req["valid"])
                return self.send_json(200, {"valid": sorted(st.tokens)})
            if path == "/_bandwidth" and cmd == "POST":
                st.bandwidth = max(0, int(req["bytes_per_second"]))
                return self.send_json(200, {"bytes_per_second": st.bandwidth})
            if path == "/_clock" and cmd == "POST":
                st.offset = float(req["offset"])
                return self.send_json(200, {"offset": st.offset})
            if path == "/_requests" and cmd in ("GET", "DELETE"):
                with st.lock:
                    if cmd == "DELETE":
                        st.log.clear()
                    out = json.dumps(st.log).encode()
                return self.emit(200, [("Content-Type", "application/json")], out)
            return self.send_json(404, {"message": "Unknown control endpoint"})
        except (ValueError, KeyError, TypeError, re.error) as e:
            return self.send_json(400, {"message": f"bad control request: {e}"})


class Server(ThreadingHTTPServer):
    daemon_threads, block_on_close = True, False  # never wait for stalled handlers
    request_queue_size = 64
    tls = None  # an ssl.SSLContext: each connection's handshake, in its own thread

    def finish_request(self, request, client_address):
        if self.tls is not None:
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return  # a client that does not trust us, or gives up: nothing to serve
        super().finish_request(request, client_address)

    def server_bind(self):  # skip HTTPServer's getfqdn() reverse lookup
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description="Fault-injecting fake Playola API")
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--tls-cert", help="serve https with this PEM certificate (with --tls-key)")
    ap.add_argument("--tls-key", help="the certificate's PEM private key")
    ap.add_argument("--faults", help="a JSON list of fault rules in force from the start")
    ap.add_argument("--exit-on-stdin-eof", action="store_true", help="exit when standard input closes")
    args = ap.parse_args()
    Handler.state = State(os.path.abspath(args.root))
    if args.faults:
        Handler.state.faults.extend(parse_rule(rule) for rule in json.loads(args.faults))

    def on_signal():
        raise SystemExit(0)
    end_on_signal_or_parent_exit(on_signal, lambda: os._exit(0), args.exit_on_stdin_eof)
    server = Server(("127.0.0.1", args.port), Handler)
    if args.tls_cert:
        server.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server.tls.load_cert_chain(args.tls_cert, args.tls_key)
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    finally:
        Handler.state.stop.set()
        server.server_close()


if __name__ == "__main__":
    main()
