"""QEMU's machine protocol (QMP): devices added and removed, the cable pulled, the power cut."""
import json, socket


class QMP:
    """QEMU's monitor: device_del/device_add of the USB card, quit."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.file = self.sock.makefile("rb")
        self.file.readline()                      # the greeting
        self.execute("qmp_capabilities")

    def execute(self, command, **arguments):
        message = {"execute": command}
        if arguments:
            message["arguments"] = arguments
        self.sock.sendall(json.dumps(message).encode() + b"\n")
        while True:                               # events come in between; the reply has return or error
            reply = json.loads(self.file.readline())
            if "error" in reply:
                raise RuntimeError(f"QMP {command}: {reply['error']}")
            if "return" in reply:
                return reply["return"]

    def close(self):
        self.sock.close()
