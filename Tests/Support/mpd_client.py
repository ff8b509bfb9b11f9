#!/usr/bin/python3
"""Drives an MPD server with python-mpd2 (Debian's python3-mpd), the library Home Assistant's MPD
integration uses, and prints what each step gave as one JSON object, for RemoteControlTests.

  mpd_client.py HOST PORT PASSWORD SCENARIO [ARGUMENT]

SCENARIO:
  commands      every command of the subset, as python-mpd2 sends and parses them (ARGUMENT: a station)
  password      two wrong passwords (timed), a command refused without one, then the right one (timed)
  homeassistant what Home Assistant's media_player.mpd does: connect, password, commands, status,
                currentsong, listplaylists; then select_source (clear, load ARGUMENT, play) and status again
  idle          idle player, printing how long it waited once it returns
A step that fails records python-mpd2's error; the script never raises.
"""
import json
import socket
import sys
import time

import mpd


def step(results, name, call):
    began = time.monotonic()
    try:
        value = call()
        results.append({"step": name, "value": value, "seconds": time.monotonic() - began})
    except (mpd.CommandError, mpd.ConnectionError, mpd.ProtocolError, OSError) as error:
        results.append({"step": name, "error": str(error), "type": type(error).__name__, "seconds": time.monotonic() - began})


def raw(client, line):
    """A command python-mpd2 has no method for (getvol, an unknown one): the answer's lines."""
    client._write_line(line)
    lines = []
    while True:
        text = client._read_line()
        if text is None:
            break
        if text.startswith("ACK "):
            raise mpd.CommandError(text)
        lines.append(text)
    return lines


def connected(host, port, password=None):
    client = mpd.MPDClient()
    client.timeout = 20
    client.connect(host, int(port))
    if password:
        client.password(password)
    return client


def main():
    host, port, password, scenario = sys.argv[1:5]
    argument = sys.argv[5] if len(sys.argv) > 5 else None
    results = []
    if scenario == "commands":
        c = connected(host, port, password)
        step(results, "mpd_version", lambda: c.mpd_version)
        step(results, "ping", c.ping)
        step(results, "load", lambda: c.load(argument))
        step(results, "play", c.play)
        time.sleep(0.5)  # the station's first spin is placed
        step(results, "status", c.status)
        step(results, "currentsong", c.currentsong)
        step(results, "playlistinfo", c.playlistinfo)
        step(results, "playlistinfo 0", lambda: c.playlistinfo(0))
        step(results, "playlistinfo 1:3", lambda: c.playlistinfo((1, 3)))
        step(results, "listplaylists", c.listplaylists)
        step(results, "outputs", c.outputs)
        step(results, "commands", c.commands)
        step(results, "notcommands", c.notcommands)
        step(results, "setvol 55", lambda: c.setvol(55))
        step(results, "getvol", lambda: raw(c, "getvol"))
        step(results, "volume -5", lambda: c.volume(-5))
        step(results, "status after volume", lambda: c.status()["volume"])
        step(results, "pause 1", lambda: c.pause(1))
        step(results, "status paused", lambda: c.status()["state"])
        step(results, "pause 0", lambda: c.pause(0))
        step(results, "status resumed", lambda: c.status()["state"])
        c.command_list_ok_begin()
        c.status()
        c.currentsong()
        c.ping()
        step(results, "command_list_ok", c.command_list_end)
        step(results, "next", c.next)
        step(results, "status after next", lambda: c.status()["state"])
        step(results, "previous", c.previous)
        step(results, "stop", c.stop)
        step(results, "status stopped", c.status)
        step(results, "currentsong stopped", c.currentsong)
        step(results, "play again", c.play)
        step(results, "unknown", lambda: raw(c, "frobnicate now"))
        step(results, "setvol x", lambda: c.setvol("x"))
        step(results, "setvol 150", lambda: c.setvol(150))
        step(results, "pause 2", lambda: c.pause(2))
        step(results, "play 5", lambda: c.play(5))
        step(results, "load nope", lambda: c.load("nope"))
        step(results, "playlistinfo 99", lambda: c.playlistinfo(99))
        step(results, "idle foo", lambda: c.idle("foo"))
        step(results, "ping after errors", c.ping)
        step(results, "close", c.close)
    elif scenario == "password":
        c = connected(host, port)
        step(results, "status without", c.status)
        step(results, "commands without", c.commands)
        step(results, "wrong 1", lambda: c.password("not the password"))
        step(results, "wrong 2", lambda: c.password("not it either!"))
        step(results, "right", lambda: c.password(password))
        step(results, "status with", lambda: c.status()["state"])
    elif scenario == "homeassistant":
        c = connected(host, port, password)
        step(results, "commands", lambda: list(c.commands()))
        step(results, "status", c.status)
        step(results, "currentsong", c.currentsong)
        step(results, "listplaylists", lambda: [p["playlist"] for p in c.listplaylists()])
        step(results, "clear", c.clear)
        step(results, "load", lambda: c.load(argument))
        step(results, "play", c.play)
        time.sleep(0.5)
        step(results, "status after", c.status)
        step(results, "currentsong after", c.currentsong)
    elif scenario == "idle":
        c = connected(host, port, password)
        print("idling", flush=True)
        began = time.monotonic()
        step(results, "idle player", lambda: c.idle("player"))
        results[-1]["returned_at"] = time.time()
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    main()
