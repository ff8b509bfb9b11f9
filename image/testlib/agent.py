"""The QEMU guest agent: shell commands in the guest, the guest's clock."""
import base64, json, socket, time


class Agent:
    """qemu-guest-agent over its virtio-serial port, one JSON command per line."""

    def __init__(self, path, timeout=10.0):
        # `timeout`: how long one command may take to be answered (a serial port's guest agent, on a slow
        # emulated board, takes longer than a virtio port's).
        self.path, self.sock, self.buf, self.timeout = path, None, b"", timeout
        # A command that timed out may still be answered later, on this channel or the next connection:
        # until a guest-sync has passed, a reply cannot be taken for the next command's.
        self.unsynced = False

    def _connect(self):
        if self.sock is None:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.connect(self.path)
            self.buf = b""

    def _reply(self, deadline):
        while b"\n" not in self.buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.sock.settimeout(remaining)
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("guest agent socket closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        line = line.strip(b"\xff \r")
        return json.loads(line) if line else None

    def sync(self, timeout=None):
        """guest-sync with a fresh id: replies to commands the agent missed or answered late are skipped."""
        self._connect()
        ident = int(time.monotonic() * 1000) & 0x7FFFFFFF
        self.sock.sendall(json.dumps({"execute": "guest-sync", "arguments": {"id": ident}}).encode() + b"\n")
        deadline = time.monotonic() + (timeout or self.timeout * 0.3)
        while True:
            reply = self._reply(deadline)
            if reply and reply.get("return") == ident:
                self.unsynced = False
                return

    def call(self, command, arguments=None, timeout=None):
        timeout = timeout or self.timeout
        if self.unsynced:
            self.sync(timeout)
        self._connect()
        message = {"execute": command}
        if arguments is not None:
            message["arguments"] = arguments
        try:
            self.sock.sendall(json.dumps(message).encode() + b"\n")
            reply = self._reply(time.monotonic() + timeout)
        except (OSError, ValueError):       # TimeoutError is an OSError
            self.close()
            self.unsynced = True
            raise
        if reply is None or "error" in reply:
            raise RuntimeError(f"{command}: {reply}")
        return reply["return"]

    def start(self, shell):
        """Starts a shell command in the guest without waiting for it; returns its pid. Its stdin is /dev/null:
        on the Pi's USB serial agent, a command the shell execs with the agent's own stdin (seen: `playola status
        --json`, every time) never reported its exit, while the same command after `; true` or `< /dev/null` did."""
        return self.call("guest-exec", {"path": "/bin/sh", "arg": ["-c", "exec </dev/null; " + shell],
                                        "capture-output": True})["pid"]

    def run(self, shell, timeout=30.0):
        """(exit code, stdout, stderr) of a shell command in the guest."""
        pid = self.start(shell)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.call("guest-exec-status", {"pid": pid})
            if status.get("exited"):
                decode = lambda key: base64.b64decode(status.get(key, "")).decode(errors="replace")
                return status.get("exitcode"), decode("out-data"), decode("err-data")
            time.sleep(0.1)
        raise TimeoutError(f"guest-exec {shell!r}")

    def out(self, shell, timeout=30.0):
        return self.run(shell, timeout)[1].strip()

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None
