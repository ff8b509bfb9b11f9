#!/usr/bin/env python3
"""A real icecast2 on 127.0.0.1, fed by ffmpeg source clients, for tests and benchmarks of streams.

Usage: python3 Tests/Support/icecast_harness.py [--port 0] [--mp3 FILE] [--aac FILE] [--ogg]
           [--titles "A - One|B - Two"] [--title-seconds 4] [--fixture-seconds 60]
           [--exit-on-stdin-eof] [--keep]

Makes a temporary directory with a generated icecast.xml (127.0.0.1 only; port 0 = a free port; random
source and admin passwords; logs in that directory; no daemonizing), starts Debian's icecast2 and two
ffmpeg source clients looping the fixtures in real time (-re -stream_loop -1 -c copy):
  /tone.mp3  audio/mpeg  --mp3 FILE, or generated: 440 Hz sine, MP3 128 kbps CBR, 44.1 kHz stereo
  /tone.aac  audio/aac   --aac FILE, or generated: 880 Hz sine, AAC-LC in ADTS, 96 kbps, 44.1 kHz stereo
(generated fixtures last --fixture-seconds, default 60: at every loop the codecs' priming and padding
make a gap of a few tens of ms; pick it longer than a test listens to hear no loop).
With --ogg, two more mounts, whose titles change as an Ogg source changes them: by starting a new logical
stream (a chain link) whose Vorbis comments (ARTIST, TITLE: the title split at " - ") name it:
  /tone.ogg   application/ogg  Vorbis q6, 44.1 kHz stereo, a 700 Hz sine
  /tone.opus  application/ogg  Opus 160 kbps, 48 kHz stereo, a 1000 Hz sine
one link a title, each --title-seconds long (a whole number of the tone's periods, so one link's sine runs
on into the next's), amplitude 0.25, no fades, encoded by ffmpeg; the harness itself is their source
client (PUT, as icecast 2.4's own clients do), sending each page when its granule position falls due.
Once both mounts answer, it sets the first title on each mount in order through icecast's admin API
(/admin/metadata?mode=updinfo&song=...&charset=UTF-8), then prints exactly one JSON line to stdout:
  {"port": N, "mounts": ["/tone.mp3", "/tone.aac"], "titles": [...], "title_seconds": S,
   "admin": {"user": "admin", "password": P}, "source_password": P, "dir": TMPDIR,
   "fixtures": {"/tone.mp3": FILE, "/tone.aac": FILE}}
and then moves to the next title (cycling) every --title-seconds on both mounts. A listener that sends
"Icy-MetaData: 1" gets icy-metaint (icecast's default, 16000) and StreamTitle='<title>'.
Runs until SIGTERM/SIGINT (or stdin EOF with --exit-on-stdin-eof); then stops icecast and ffmpeg
(their whole process group) and removes the directory (unless --keep). The children also die with
the harness if it is killed outright (PR_SET_PDEATHSIG through setpriv). If icecast dies, the harness
says so on stderr and exits 1.

icecast2 refuses to run as root: as root the harness starts it as user icecast2, group icecast (what
the Debian package creates; nobody/nogroup if absent) through setpriv, and hands it the directory.
Python 3.11 stdlib only; needs icecast2, ffmpeg and setpriv (util-linux).
"""
import argparse, base64, grp, json, os, pwd, secrets, shutil, signal, socket, subprocess, sys, tempfile
import threading, time
import urllib.error, urllib.parse, urllib.request
from lifetime import end_on_signal_or_parent_exit

MOUNTS = ("/tone.mp3", "/tone.aac")
CONTENT_TYPES = {"/tone.mp3": "audio/mpeg", "/tone.aac": "audio/aac"}
MUXERS = {"/tone.mp3": ["-f", "mp3"], "/tone.aac": ["-f", "adts"]}
# mount: (codec arguments, sample rate, tone Hz)
OGG_MOUNTS = {
    "/tone.ogg": (["-c:a", "libvorbis", "-q:a", "6"], 44100, 700),
    "/tone.opus": (["-c:a", "libopus", "-b:a", "160k"], 48000, 1000),
}


def log(message):
    print(f"icecast_harness: {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_fixture(mount, path, seconds):
    if mount == "/tone.mp3":
        codec = ["-c:a", "libmp3lame", "-b:a", "128k", "-id3v2_version", "0", "-write_xing", "0", "-f", "mp3"]
        tone = 440
    else:
        codec = ["-c:a", "aac", "-profile:a", "aac_low", "-b:a", "96k", "-f", "adts"]
        tone = 880
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"sine=f={tone}:sample_rate=44100:duration={seconds}", "-ac", "2", "-ar", "44100",
                    *codec, path], check=True, stdin=subprocess.DEVNULL)


def ogg_pages(data):
    """The pages of an Ogg file as (granule position, bytes), in order."""
    pages, at = [], 0
    while at + 27 <= len(data):
        if data[at:at + 4] != b"OggS":
            raise ValueError(f"no Ogg page at byte {at}")
        granule = int.from_bytes(data[at + 6:at + 14], "little", signed=True)
        segments = data[at + 26]
        end = at + 27 + segments + sum(data[at + 27:at + 27 + segments])
        pages.append((granule, data[at:end]))
        at = end
    return pages


def service_account():
    """(uid, gid, user, group) icecast runs as when we are root."""
    for user, group in (("icecast2", "icecast"), ("nobody", "nogroup")):
        try:
            return pwd.getpwnam(user).pw_uid, grp.getgrnam(group).gr_gid, user, group
        except KeyError:
            continue
    raise SystemExit("icecast_harness: no icecast2 or nobody account to run icecast2 as")


def config(directory, port, source_password, admin_password, all_mounts):
    mounts = "".join(f"""
  <mount type="normal">
    <mount-name>{m}</mount-name>
    <charset>UTF-8</charset>
  </mount>""" for m in all_mounts)
    return f"""<icecast>
  <location>Playola tests</location>
  <admin>tests@localhost</admin>
  <limits>
    <clients>100</clients>
    <sources>4</sources>
    <queue-size>524288</queue-size>
    <client-timeout>30</client-timeout>
    <header-timeout>15</header-timeout>
    <source-timeout>10</source-timeout>
    <burst-on-connect>1</burst-on-connect>
    <burst-size>65535</burst-size>
  </limits>
  <authentication>
    <source-password>{source_password}</source-password>
    <relay-password>{source_password}</relay-password>
    <admin-user>admin</admin-user>
    <admin-password>{admin_password}</admin-password>
  </authentication>
  <hostname>127.0.0.1</hostname>
  <listen-socket>
    <port>{port}</port>
    <bind-address>127.0.0.1</bind-address>
  </listen-socket>{mounts}
  <fileserve>1</fileserve>
  <paths>
    <basedir>{directory}</basedir>
    <logdir>{directory}</logdir>
    <webroot>/usr/share/icecast2/web</webroot>
    <adminroot>/usr/share/icecast2/admin</adminroot>
    <pidfile>{directory}/icecast.pid</pidfile>
    <alias source="/" destination="/status.xsl"/>
  </paths>
  <logging>
    <accesslog>access.log</accesslog>
    <errorlog>error.log</errorlog>
    <loglevel>3</loglevel>
    <logsize>10000</logsize>
  </logging>
  <security>
    <chroot>0</chroot>
  </security>
</icecast>
"""


class Harness:
    def __init__(self, args):
        self.args, self.stop = args, threading.Event()
        self.dir = tempfile.mkdtemp(prefix="playola-icecast-")
        self.port = args.port or free_port()
        self.source_password, self.admin_password = secrets.token_hex(8), secrets.token_hex(8)
        self.titles = [t for t in args.titles.split("|") if t] if args.titles else []
        self.icecast, self.sources, self.pgid = None, {}, None
        self.mounts = MOUNTS + (tuple(OGG_MOUNTS) if args.ogg else ())
        self.ogg_failure = None

    def tail(self, name, lines=5):
        try:
            with open(os.path.join(self.dir, name), errors="replace") as f:
                return " | ".join(f.read().splitlines()[-lines:])
        except OSError:
            return ""

    def spawn(self, argv, logname, as_service=False):
        wrapper = ["setpriv", "--pdeathsig", "KILL"]
        if as_service and os.geteuid() == 0:
            uid, gid, user, group = service_account()
            wrapper[1:1] = [f"--reuid={uid}", f"--regid={gid}", "--init-groups"]
        out = open(os.path.join(self.dir, logname), "wb")
        process = subprocess.Popen(wrapper + argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   process_group=0 if self.pgid is None else self.pgid)
        out.close()
        if self.pgid is None:
            self.pgid = process.pid
        return process

    def start(self):
        a = self.args
        fixtures = {"/tone.mp3": a.mp3, "/tone.aac": a.aac}
        for mount in MOUNTS:
            if fixtures[mount] is None:
                fixtures[mount] = os.path.join(self.dir, "fixture-" + mount[1:])
                make_fixture(mount, fixtures[mount], a.fixture_seconds)
            fixtures[mount] = os.path.abspath(fixtures[mount])
        self.fixtures = fixtures
        conf = os.path.join(self.dir, "icecast.xml")
        with open(conf, "w") as f:
            f.write(config(self.dir, self.port, self.source_password, self.admin_password, self.mounts))
        if os.geteuid() == 0:  # icecast runs as its own account: it needs the directory for its logs
            uid, gid, _, _ = service_account()
            for name in [self.dir] + [os.path.join(self.dir, n) for n in os.listdir(self.dir)]:
                os.chown(name, uid, gid)
        self.icecast = self.spawn(["icecast2", "-c", conf], "icecast.out", as_service=True)
        self.wait_for(lambda: self.connects(), 10, "icecast2 to listen")
        for mount in MOUNTS:
            url = f"icecast://source:{self.source_password}@127.0.0.1:{self.port}{mount}"
            self.sources[mount] = self.spawn(
                ["ffmpeg", "-nostdin", "-hide_banner", "-v", "warning", "-re", "-stream_loop", "-1",
                 "-i", fixtures[mount], "-c", "copy", "-content_type", CONTENT_TYPES[mount],
                 "-ice_name", f"Playola test {mount[6:].upper()}", "-ice_genre", "Test",
                 "-ice_description", f"{mount} from {os.path.basename(fixtures[mount])}",
                 *MUXERS[mount], url], f"ffmpeg-{mount[6:]}.log")
        if self.args.ogg:
            for mount, (codec, rate, tone) in OGG_MOUNTS.items():
                links = [self.make_ogg_link(mount, i, title, codec, rate, tone) for i, title in enumerate(self.titles or ["Tone"])]
                threading.Thread(target=self.feed_ogg, args=(mount, links), daemon=True).start()
        self.wait_for(self.mounts_up, 20, "every mount to answer")
        if self.titles:
            self.set_title(self.titles[0])

    def connects(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def wait_for(self, predicate, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.icecast.poll() is not None:
                raise SystemExit(f"icecast_harness: icecast2 exited ({self.icecast.returncode}): "
                                 f"{self.tail('icecast.out')} {self.tail('error.log')}")
            for mount, source in self.sources.items():
                if source.poll() is not None:
                    raise SystemExit(f"icecast_harness: the ffmpeg source of {mount} exited: "
                                     f"{self.tail('ffmpeg-' + mount[6:] + '.log')}")
            if self.ogg_failure:
                raise SystemExit(f"icecast_harness: {self.ogg_failure}")
            if predicate():
                return
            time.sleep(0.1)
        raise SystemExit(f"icecast_harness: timed out waiting for {what}: {self.tail('error.log')}")

    def mounts_up(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/status-json.xsl", timeout=2) as r:
                sources = json.load(r)["icestats"].get("source", [])
        except (OSError, ValueError, KeyError):
            return False
        if isinstance(sources, dict):  # one source is an object, not a list
            sources = [sources]
        listed = {urllib.parse.urlsplit(s.get("listenurl", "")).path for s in sources}
        if not set(self.mounts) <= listed:
            return False
        for mount in self.mounts:  # and each mount really gives audio
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{mount}", timeout=2) as r:
                    if r.status != 200 or not r.read(1024):
                        return False
            except OSError:
                return False
        return True

    def set_title(self, title):
        auth = base64.b64encode(f"admin:{self.admin_password}".encode()).decode()
        for mount in MOUNTS:
            query = urllib.parse.urlencode({"mount": mount, "mode": "updinfo", "song": title, "charset": "UTF-8"},
                                           quote_via=urllib.parse.quote)
            request = urllib.request.Request(f"http://127.0.0.1:{self.port}/admin/metadata?{query}",
                                             headers={"Authorization": "Basic " + auth})
            try:
                with urllib.request.urlopen(request, timeout=5) as r:
                    body = r.read().decode(errors="replace")
                if "<return>1</return>" not in body:
                    log(f"setting the title of {mount} to {title!r}: {body.strip()}")
            except OSError as e:
                log(f"setting the title of {mount} to {title!r}: {e}")

    def make_ogg_link(self, mount, index, title, codec, rate, tone):
        """One chain link: --title-seconds of the tone, tagged with the title, as (pages, rate)."""
        path = os.path.join(self.dir, f"link-{index}{os.path.splitext(mount)[1]}")
        artist, _, song = title.rpartition(" - ")
        tags = ["-metadata", f"title={song or title}"] + (["-metadata", f"artist={artist}"] if artist else [])
        wave = f"0.25*sin(2*PI*{tone}*t)"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        f"aevalsrc={wave}|{wave}:s={rate}:d={self.args.title_seconds}", *codec, *tags, "-f", "ogg", path],
                       check=True, stdin=subprocess.DEVNULL)
        with open(path, "rb") as f:
            return ogg_pages(f.read()), (48000 if "opus" in mount else rate)

    def feed_ogg(self, mount, links):
        """The source client of an Ogg mount: the links in turn, forever, each page sent when due."""
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            auth = base64.b64encode(f"source:{self.source_password}".encode()).decode()
            sock.sendall((f"PUT {mount} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAuthorization: Basic {auth}\r\n"
                          f"Content-Type: application/ogg\r\nIce-Name: Playola test {mount[6:].upper()}\r\n"
                          f"Ice-Public: 0\r\n\r\n").encode())
            reply = sock.recv(4096).decode(errors="replace")
            if not reply.startswith("HTTP/1.") or " 200 " not in reply.split("\r\n", 1)[0]:
                raise OSError(f"icecast refused the source of {mount}: {reply.splitlines()[:1]}")
            start, offset = time.monotonic(), 0.0
            while not self.stop.is_set():
                for pages, rate in links:
                    for granule, page in pages:
                        due = start + offset + max(granule, 0) / rate - 1.0  # a second ahead, as a source's buffer
                        if self.stop.wait(max(0.0, due - time.monotonic())):
                            return
                        sock.sendall(page)
                    offset += self.args.title_seconds
        except OSError as e:
            if not self.stop.is_set():
                self.ogg_failure = f"the source of {mount}: {e}"
                log(self.ogg_failure)

    def rotate_titles(self):
        i = 0
        while not self.stop.wait(self.args.title_seconds):
            i = (i + 1) % len(self.titles)
            self.set_title(self.titles[i])

    def ready_line(self):
        return json.dumps({"port": self.port, "mounts": list(self.mounts), "titles": self.titles,
                           "title_seconds": self.args.title_seconds,
                           "admin": {"user": "admin", "password": self.admin_password},
                           "source_password": self.source_password, "dir": self.dir, "fixtures": self.fixtures})

    def watch(self):
        """Until told to stop: complain if a child dies. Returns the exit status."""
        reported = set()
        while not self.stop.wait(0.5):
            if self.icecast.poll() is not None:
                log(f"icecast2 exited ({self.icecast.returncode}): {self.tail('error.log')}")
                return 1
            for mount, source in self.sources.items():
                if source.poll() is not None and mount not in reported:
                    reported.add(mount)
                    log(f"the ffmpeg source of {mount} exited ({source.returncode}): "
                        f"{self.tail('ffmpeg-' + mount[6:] + '.log')}")
        return 0

    def cleanup(self):
        self.stop.set()
        if self.pgid is not None:
            for sig, grace in ((signal.SIGTERM, 3), (signal.SIGKILL, 3)):
                try:
                    os.killpg(self.pgid, sig)
                except ProcessLookupError:
                    break
                deadline = time.monotonic() + grace
                children = [self.icecast, *self.sources.values()]
                while time.monotonic() < deadline and any(c.poll() is None for c in children):
                    time.sleep(0.05)
                if all(c.poll() is not None for c in children):
                    break
        if not self.args.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="A real icecast2 fed by ffmpeg, for stream tests")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--mp3", help="MP3 fixture for /tone.mp3 (default: a generated 440 Hz sine)")
    ap.add_argument("--aac", help="AAC ADTS fixture for /tone.aac (default: a generated 880 Hz sine)")
    ap.add_argument("--ogg", action="store_true", help="add the Ogg Vorbis and Opus mounts, their titles as chain links")
    ap.add_argument("--titles", default="Artist One - Song One|Artist Two - Song Two|Artist Three - Song Three")
    ap.add_argument("--title-seconds", type=float, default=4.0)
    ap.add_argument("--fixture-seconds", type=int, default=60)
    ap.add_argument("--exit-on-stdin-eof", action="store_true", help="exit when standard input closes")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (logs) at exit")
    args = ap.parse_args()
    if args.title_seconds <= 0 or args.fixture_seconds <= 0:
        ap.error("--title-seconds and --fixture-seconds must be positive")
    for tool in ("icecast2", "ffmpeg", "setpriv"):
        if shutil.which(tool) is None:
            ap.error(f"{tool} is not installed (script/setup installs it)")

    harness = Harness(args)

    end_on_signal_or_parent_exit(harness.stop.set, harness.stop.set, args.exit_on_stdin_eof)
    status = 1
    try:
        harness.start()
        if len(harness.titles) > 1:
            threading.Thread(target=harness.rotate_titles, daemon=True).start()
        print(harness.ready_line(), flush=True)
        status = harness.watch()
    except subprocess.CalledProcessError as e:
        log(f"making a fixture failed: {e}")
    except SystemExit as e:
        if e.code not in (None, 0):
            print(e.code, file=sys.stderr, flush=True)
    finally:
        harness.cleanup()
    sys.exit(status)


if __name__ == "__main__":
    main()
