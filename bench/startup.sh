#!/usr/bin/env bash
# Start-up benchmark (issue #15): with a warm cache (the binary and the station's files read once before),
#   run → first frame: from starting `playola run` to the first frame the device plays, and to the first
#                      frame of sound (a local station of AAC 44.1 kHz files, `rate = auto`);
#   play → audio:      with the service running and stopped (the device open, playing silence), from
#                      starting `playola play` to the first frame of sound the device plays.
# The device is a test sound card (Tests/Support/alsa_clock_plugin.c): it plays at real time from a ring of
# one buffer (0.3 s), as hardware does, and hands each frame, when its clock plays it, through a FIFO to
# bench/first_sound.py, which notes when each arrives (within ~5 ms of being played).
# Usage: bench/startup.sh [RUNS]   (default 5 of each; the median and the largest are printed)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
. bench/common.sh
bench_run_dir startup
build_playola

music=$(bench_aac_station)
# The device: a test sound card (Tests/Support/alsa_clock_plugin.c) that plays at real time from a ring of one
# buffer, as hardware does (so a rewind means what it means on a DAC), and hands each frame to the reader
# when its clock plays it. S16 stereo; the player opens it at 44.1 kHz (`rate = auto`).
cc -shared -fPIC -DPIC -O2 -o "$run/libasound_module_pcm_playola_clock.so" Tests/Support/alsa_clock_plugin.c -lasound
cat > "$run/asound.conf" <<CONF
pcm_type.playola_clock { lib "$run/libasound_module_pcm_playola_clock.so" }
pcm.bench { type playola_clock capture "$run/pcm.fifo" }
CONF
# One reader for every run, started first (its start-up is not the player's).
mkfifo "$run/pcm.fifo"
: > "$run/events"
python3 bench/first_sound.py "$run/pcm.fifo" "$run/events" 44100 &
reader=$!
export ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:$run/asound.conf
cat > "$run/playola.ini" <<CONF
[player]
station = bench
device = bench
volume = 100

[service]
socket = $run/control.sock
state_dir = $run/state

[cache]
dir = $run/cache
size = 16M

[station bench]
type = local
path = $music
CONF
service=""
trap '[[ -n $service ]] && kill "$service" 2>/dev/null; kill "$reader" 2>/dev/null; wait 2>/dev/null; true' EXIT

now() { date +%s.%N; }
# Waits (at most 5 s) for an event line of KIND after time SINCE; prints its time.
event_after() { # kind since
  local deadline=$((SECONDS + 5)) at
  while ((SECONDS < deadline)); do
    at=$(awk -v k="$1" -v s="$2" '$1 == k && $2 > s { print $2; exit }' "$run/events" 2>/dev/null)
    [[ -n $at ]] && { echo "$at"; return; }
    sleep 0.01
  done
  echo "startup.sh: no '$1' event within 5 s ($run)" >&2
  exit 1
}
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f\n", (b - a) * 1000 }'; }
summary() { # label target values...
  printf '%s\n' "${@:3}" | sort -n | awk -v l="$1" -v t="$2" '{ v[NR] = $1 } END {
    printf "%-34s %8d %8d %10s\n", l, v[int((NR + 1) / 2)], v[NR], t }'
}

start_service() { # sets $began and $service
  began=$(now)
  "$playola" run --config "$run/playola.ini" >/dev/null 2>>"$run/playola.log" &
  service=$!
}
# The reader gets to the end of this writer (what it left in the pipe) before the next one opens the FIFO.
stop_service() { kill "$service"; wait "$service" 2>/dev/null || true; service=""; sleep 0.5; }

# Warm the cache: one run played to sound, not counted.
start_service; event_after sound "$began" >/dev/null; stop_service

first=() sound=() play=()
for _ in $(seq "$runs"); do
  start_service
  first+=("$(ms "$began" "$(event_after first "$began")")")
  sound+=("$(ms "$began" "$(event_after sound "$began")")")
  stop_service
done

start_service; event_after sound "$began" >/dev/null
for _ in $(seq "$runs"); do
  "$playola" stop --socket "$run/control.sock" >/dev/null
  sleep 1
  began=$(now)
  "$playola" play --socket "$run/control.sock" >/dev/null
  play+=("$(ms "$began" "$(event_after sound "$began")")")
  sleep 1
done
stop_service

echo "Start-up benchmark: $runs runs each, warm cache, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
printf "%-34s %8s %8s %10s\n" "case" "median ms" "max ms" "target ms"
summary "run → first frame played" "≤ 150" "${first[@]}"
summary "run → first sound played" "—" "${sound[@]}"
summary "play (when stopped) → sound played" "≤ 100" "${play[@]}"
