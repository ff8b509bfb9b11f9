#!/usr/bin/env bash
# Start-up benchmark (issue #15): with a warm cache (the binary and the station's files read once before),
#   run → first frame: from starting `playola run` to the first frame written to the device, and to the
#                      first frame of sound (a local station of AAC 44.1 kHz files, `rate = auto`);
#   play → audio:      with the service running and stopped (the device open, playing silence), from
#                      starting `playola play` to the first frame of sound written to the device.
# The device is ALSA's null behind the file plugin, into bench/first_sound.py, which reads it at the real-time
# rate through a one-page pipe and notes when each arrives: "written to the device" is within a few ms of
# the player's write, not when a DAC would sound it (add the device buffer, 0.3 s, for a stopped device
# whose buffer holds silence).
# Usage: bench/startup.sh [RUNS]   (default 5 of each; the median and the largest are printed)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
. bench/common.sh
bench_run_dir startup
build_playola

music=$(bench_aac_station)
cat > "$run/asound.conf" <<CONF
pcm.bench {
    type plug
    slave { pcm "bench_timed"; format S16_LE; rate 44100; channels 2 }
}
pcm.bench_timed {
    type file
    slave.pcm "null"
    file "|exec python3 $PWD/bench/first_sound.py $run/events 44100"
    format "raw"
}
CONF
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
trap '[[ -n $service ]] && kill "$service" 2>/dev/null; wait 2>/dev/null; true' EXIT

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
  : > "$run/events"
  began=$(now)
  "$playola" run --config "$run/playola.ini" >/dev/null 2>>"$run/playola.log" &
  service=$!
}
stop_service() { kill "$service"; wait "$service" 2>/dev/null || true; service=""; }

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
summary "run → first frame written" "≤ 150" "${first[@]}"
summary "run → first sound written" "—" "${sound[@]}"
summary "play (when stopped) → sound written" "≤ 100" "${play[@]}"
