#!/usr/bin/env bash
# Memory over a day (issue 15, "must be shown" 4): `playola render` of a looping schedule for 24 hours of
# virtual time to the null sink, its resident memory read from /proc as the render passes each virtual hour
# (the start lines it prints carry the virtual time). Target: RSS at 24 h within 1 MiB of RSS at 1 h.
# The schedule: three 3-minute files (two MP3 48 kHz, one AAC 44.1 kHz .m4a) in turn, each overlapping the
# next by 5 s under 1.5 s fades, so voices, decoders and resamplers come and go 480 times.
# Usage: bench/longrender.sh [HOURS]   (default 24)
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:-24}
script/setup --bench >/dev/null
swift build -c release --product playola --static-swift-stdlib >/dev/null
playola=$(pwd)/.build/release/playola
work=bench/runs/longrender
mkdir -p "$work"

content="anoisesrc=color=pink:amplitude=0.15:sample_rate=RATE:duration=180[n];sine=f=FREQ:sample_rate=RATE:duration=180[a];[n][a]amix=inputs=2,aformat=channel_layouts=stereo"
make() { # rate freq codec file
  [[ -s "$4" ]] && return
  local filter=${content//RATE/$1}
  ffmpeg -v error -y -filter_complex "${filter//FREQ/$2}" -c:a "$3" -b:a 160k "$4"
}
make 48000 220 libmp3lame "$work/a.mp3"
make 48000 330 libmp3lame "$work/b.mp3"
make 44100 440 aac "$work/c.m4a"

python3 - "$work/day.json" "$hours" <<'PY'
import datetime, json, sys
out, hours = sys.argv[1], int(sys.argv[2])
start = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
files, spins = ["a.mp3", "b.mp3", "c.m4a"], []
for index in range(hours * 3600 // 175 + 3):  # the last starts after the final hour, and marks it
    airtime = start + datetime.timedelta(seconds=175 * index)
    spins.append({"id": f"day-{index}", "stationId": "bench", "airtime": airtime.isoformat().replace("+00:00", "Z"),
                  "startingVolume": 1, "fades": [{"atMS": 173500, "toVolume": 0}],
                  "audioBlock": {"id": f"b{index % 3}", "title": files[index % 3], "artist": "bench",
                                 "durationMS": 180000, "endOfMessageMS": 175000,
                                 "downloadUrl": "file:///" + files[index % 3]}})
json.dump(spins, open(out, "w"))
PY

# Runs the render and reads its RSS each time the virtual clock passes a whole hour.
python3 - "$playola" "$work" "$hours" <<'PY'
import datetime, subprocess, sys, time
playola, work, hours = sys.argv[1], sys.argv[2], int(sys.argv[3])
start = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
began = time.monotonic()
render = subprocess.Popen(["stdbuf", "-oL", playola, "render", "--schedule", f"{work}/day.json", "--media", work,
                           "--from", "2025-01-01T00:00:00Z", "--duration", str(hours * 3600 + 360), "--out", "null",
                           "--rate", "44100"], stdout=subprocess.PIPE, text=True)
def rss_kib():
    with open(f"/proc/{render.pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
readings, hour, failures = {}, 1, 0
for line in render.stdout:
    if " failed" in line or "error" in line:
        failures += 1
    stamp = line.split(" ", 1)[0]
    try:
        at = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        continue
    while hour <= hours and at >= start + datetime.timedelta(hours=hour):
        readings[hour] = rss_kib()
        print(f"virtual hour {hour:2d}: RSS {readings[hour] / 1024:.2f} MiB "
              f"({time.monotonic() - began:.0f} s of real time)", flush=True)
        hour += 1
render.wait()
print(f"render exit status {render.returncode}; lines naming a failure: {failures}")
first, last = readings.get(1), readings.get(max(readings) if readings else 0)
if first and last:
    growth = (last - first) / 1024
    print(f"RSS at hour {max(readings)} − RSS at hour 1: {growth:+.2f} MiB (target: within ±1 MiB)")
    sys.exit(0 if abs(growth) <= 1 and render.returncode == 0 else 1)
sys.exit(1)
PY
