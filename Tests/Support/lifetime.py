"""How a support server ends, shared by the servers in this folder: at SIGTERM or SIGINT, and, with
--exit-on-stdin-eof, when the test process that started it ends (even by a crash), for that process holds
our standard input open."""
import os
import signal
import threading


def end_on_signal_or_parent_exit(on_signal, on_parent_exit, watch_parent):
    """Calls `on_signal` at SIGTERM or SIGINT and, when `watch_parent`, `on_parent_exit` once standard
    input closes (from a daemon thread)."""
    signal.signal(signal.SIGTERM, lambda *_: on_signal())
    signal.signal(signal.SIGINT, lambda *_: on_signal())
    if not watch_parent:
        return

    def watch():
        # os.read, not sys.stdin: a daemon thread blocked in a buffered read holds its lock, and the
        # interpreter aborts at exit after SIGTERM ("could not acquire lock for <stdin>").
        try:
            while os.read(0, 4096):
                pass
        finally:
            on_parent_exit()
    threading.Thread(target=watch, daemon=True).start()

