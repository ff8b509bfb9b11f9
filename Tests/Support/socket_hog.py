#!/usr/bin/env python3
"""A hostile user of the control socket, for tests: holds as many of its slots as it can.

Usage: python3 Tests/Support/socket_hog.py SOCKET --connections N [--hold 1.8] [--exit-on-stdin-eof]

In rounds, for as long as it runs: opens N connections to the Unix socket SOCKET as fast as it can
(a full backlog is waited out), sends each a line the service refuses at once ("hog"), so a connection
that was given a slot says so with that refusal, and one turned away says so with its own; after
--hold seconds from the round's start, closes them all and begins the next. One JSON line on stdout per
round: {"held": connections the service served, "refused": connections it turned away, "refusal": the
first turning-away text, "pending": connections that heard nothing}. Python 3.11 stdlib only.
"""
import argparse, errno, json, os, select, socket, sys, time
from lifetime import end_on_signal_or_parent_exit


def connect(path, deadline):
    while time.monotonic() < deadline:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
        try:
            s.connect(path)
            return s
        except BlockingIOError:  # the listen backlog is full: wait for the service to take some
            s.close()
            time.sleep(0.002)
        except OSError as e:
            s.close()
            if e.errno not in (errno.EAGAIN, errno.ECONNREFUSED):
                raise
            time.sleep(0.002)
    return None


def one_round(path, count, hold):
    began = time.monotonic()
    deadline = began + hold
    said = {}
    for _ in range(count):
        s = connect(path, deadline)
        if s is None:
            break
        try:
            s.send(b"hog\n")
        except OSError:
            pass
        said[s] = b""
    waiting = set(said)
    while waiting and time.monotonic() < deadline:
        ready, _, _ = select.select(list(waiting), [], [], max(0.0, deadline - time.monotonic()))
        for s in ready:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            said[s] += data
            if not data or b"\n" in said[s]:
                waiting.discard(s)
    held = refused = pending = 0
    refusal = None
    for s, text in said.items():
        line = text.decode("utf-8", "replace")
        if "too many connections" in line:
            refused += 1
            refusal = refusal or json.loads(line.splitlines()[0]).get("error")
        elif "unknown command" in line:
            held += 1
        else:
            pending += 1
    remaining = deadline - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)
    for s in said:
        s.close()
    return {"held": held, "refused": refused, "refusal": refusal, "pending": pending}


def main():
    ap = argparse.ArgumentParser(description="Holds control-socket slots")
    ap.add_argument("socket")
    ap.add_argument("--connections", type=int, required=True)
    ap.add_argument("--hold", type=float, default=1.8)
    ap.add_argument("--exit-on-stdin-eof", action="store_true", help="exit when standard input closes")
    args = ap.parse_args()
    end_on_signal_or_parent_exit(lambda: os._exit(0), lambda: os._exit(0), args.exit_on_stdin_eof)
    while True:
        print(json.dumps(one_round(args.socket, args.connections, args.hold)), flush=True)


if __name__ == "__main__":
    main()
