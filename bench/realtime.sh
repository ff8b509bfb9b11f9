#!/usr/bin/env bash
# Real-time benchmark (issue #15): the CPU and memory of each player's own process while it plays in real
# time, side by side in one run:
#   an Icecast MP3 stream: mpg123, MPD and playola play /tone.mp3 of a real icecast2 on 127.0.0.1
#     (Tests/Support/icecast_harness.py: 440 Hz sine, MP3 128 kbps CBR, 44.1 kHz stereo);
#   a local station of AAC 44.1 kHz .m4a files (pink noise under moving tones, 192 kbps, three files of
#     50 s looping): MPD (a playlist of the folder, repeat on) and playola (a [station] of type local).
# Each player writes into ALSA's null device behind the file plugin, paced by `pv -L` at the real-time byte
# rate (bench/common.sh; pv is a separate process, so it is not counted). After WARMUP seconds of playing
# (start-up, first fetch and probe left out), the player's own CPU (the run time of all its threads in
# /proc/PID/task/*/schedstat, no children) is read over WINDOW seconds, then its resident memory: VmRSS (steady) and
# VmHWM (peak) of /proc/PID/status. MPD is Debian's (zeroconf off, no mixer). The device PCM takes 44.1 kHz
# (S16 through `plug`, which converts formats but not rates) for all but the playola rows "→ 48k", whose
# device takes only 48 kHz, as a 48 kHz-only DAC; playola runs with `rate = auto` (RATE=44100|48000 forces).
# After the table, each playola stream's drift loop at the end of its window (clockPPM from its status).
# The "sound s" column counts the seconds of the capture that held the tone (stream) or sound (AAC): each
# player really played. Figures from a 2-core machine shared with builds are noisy: rerun to compare.
# Usage: bench/realtime.sh [WINDOW] [WARMUP]   (default 30 s measured after 10 s)
#   CASES=REGEX runs only the cases whose name matches (mpg123, mpd-stream, playola-stream-44100, ...).
#   PROFILE=1 also profiles the playola cases over the window: perf's CPU-clock samples by library and
#     function (per hour of audio), and each thread's wake-ups per second (context switches, from
#     /proc/PID/task/*/status), into $run/CASE.profile; bench/PROFILE.md is made from these.
#   SWIFT_SCRATCH=DIR builds into DIR (swift build --scratch-path) instead of .build.
set -euo pipefail
cd "$(dirname "$0")/.."
window=${1:-30}
warmup=${2:-10}
. bench/common.sh
bench_run_dir realtime
build_playola

start_icecast
player_pid=""
cleanup() {
  [[ -n $player_pid ]] && kill "$player_pid" 2>/dev/null && wait "$player_pid" 2>/dev/null
  kill "$harness_pid" 2>/dev/null || true; wait "$harness_pid" 2>/dev/null || true
  rm -f "$run"/*.raw
}
trap cleanup EXIT

music=$(bench_aac_station)

playola_conf() { # case device-rate station-lines...   (the [player] rate is $RATE, default auto)
  mkdir -p "$run/$1"
  {
    printf '[player]\nstation = bench\ndevice = bench\nvolume = 100\nrate = %s\n\n' "${RATE:-auto}"
    printf '[service]\nsocket = %s\nstate_dir = %s\n\n' "$run/$1/control.sock" "$run/$1/state"
    printf '[cache]\ndir = %s\nsize = 16M\n\n[station bench]\n' "$run/$1/cache"
    printf '%s\n' "${@:3}"
  } > "$run/$1.ini"
  echo "$run/$1.ini"
}

mpd_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mpd_conf() { # case
  mkdir -p "$run/$1"
  cat > "$run/$1.conf" <<EOF
music_directory "$music"
playlist_directory "$run/$1"
db_file "$run/$1/database"
log_file "$run/$1.log"
bind_to_address "127.0.0.1"
port "$mpd_port"
zeroconf_enabled "no"
auto_update "no"
audio_output {
    type "alsa"
    name "bench"
    device "bench"
    mixer_type "none"
}
EOF
  echo "$run/$1.conf"
}
# Sends MPD protocol commands (one per argument) and waits for each answer; "wait-update" waits until
# the database update is over.
mpd_send() {
  python3 - "$mpd_port" "$@" <<'PY'
import socket, sys, time
port, commands = int(sys.argv[1]), sys.argv[2:]
for attempt in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", port)); break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("realtime.sh: MPD did not open its port")
f = s.makefile("rw")
f.readline()
def send(command):
    f.write(command + "\n"); f.flush()
    lines = []
    while True:
        line = f.readline()
        if not line or line.startswith("ACK"): sys.exit(f"realtime.sh: MPD said {line.strip()!r} to {command!r}")
        if line == "OK\n": return lines
        lines.append(line)
for command in commands:
    if command == "wait-update":
        while any(line.startswith("updating_db") for line in send("status")): time.sleep(0.1)
    else:
        send(command)
PY
}

# The CPU time of a process's threads so far, in ns (the scheduler's own count, finer than utime's ticks;
# threads that ended are not counted: none does in steady playing).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ ns += $1 } END { printf "%d\n", ns }'; }

# Each thread's name and context switches so far (voluntary + involuntary: its wake-ups).
switches() {
  for task in /proc/"$1"/task/*; do
    printf '%s %s %s\n' "${task##*/}" "$(awk '/ctxt_switches/ { n += $2 } END { print n }' "$task/status")" "$(tr ' ' _ < "$task/comm")"
  done
}

# The profile of one playola case: CPU by library and by function (share of the samples, and CPU s per
# hour of audio at the measured rate), and each thread's wake-ups per second of audio.
profile() { # case
  local case=$1 per_hour
  per_hour=$(awk -v c="${cpu[$case]}" -v s="$window" 'BEGIN { printf "%.2f", c * 3600 / s }')
  {
    echo "== $case: ${per_hour} CPU s per hour of audio"
    echo "-- by library (% of samples, s/h)"
    perf report -i "$run/$case.perf" --no-children --sort dso --stdio -q 2>/dev/null | grep -v '^$' \
      | awk -v h="$per_hour" '$1 ~ /%$/ { p = $1; sub(/%/, "", p); if (p >= 0.5) printf "%6.1f%% %6.2f  %s\n", p, p * h / 100, $2 }' | head -n 12
    echo "-- by function (% of samples, s/h)"
    perf report -i "$run/$case.perf" --no-children --sort dso,sym --stdio -q -g none 2>/dev/null | grep -v '^$' \
      | awk -v h="$per_hour" '$1 ~ /%$/ { p = $1; sub(/%/, "", p); $1 = ""; if (p >= 1) printf "%6.1f%% %6.2f %s\n", p, p * h / 100, substr($0, 1, 110) }' | head -n 25
    echo "-- by thread (% of samples, s/h)"
    perf report -i "$run/$case.perf" --no-children --sort comm --stdio -q 2>/dev/null | grep -v '^$' \
      | awk -v h="$per_hour" '$1 ~ /%$/ { p = $1; sub(/%/, "", p); if (p >= 0.5) printf "%6.1f%% %6.2f  %s\n", p, p * h / 100, $2 }'
    echo "-- resident memory by mapping (KiB; the largest)"
    awk '/^[0-9a-f]+-[0-9a-f]+ / { name = NF >= 6 ? $6 : "[anon]" } /^Rss:/ { rss[name] += $2; total += $2 }
         END { for (n in rss) if (rss[n] >= 256) printf "%8d  %s\n", rss[n], n; printf "%8d  total\n", total }' "$run/$case.smaps" | sort -rn | head -n 14
    echo "-- wake-ups per second, by thread"
    join <(sort "$run/$case.switches.before") <(sort "$run/$case.switches.after") \
      | awk -v s="$window" '{ printf "%8.1f  %s (tid %s)\n", ($4 - $2) / s, $3, $1 }' | sort -rn
  } > "$run/$case.profile"
  cat "$run/$case.profile"
}

# Runs one case: starts the player (command after the case name; "mpd-stream"/"mpd-aac" are told what to
# play), lets it play WARMUP s, measures WINDOW s, stops it. Prints "cpu_seconds rss_kib hwm_kib".
measure() { # case rate command...
  local case=$1 rate=$2
  env ALSA_CONFIG_PATH="$(alsa_conf "$case" "$rate")" "${@:3}" >"$run/$case.out" 2>"$run/$case.err" &
  player_pid=$!
  case $case in
    mpd-stream) mpd_send "add $url" play ;;
    mpd-aac) mpd_send update wait-update 'add ""' "repeat 1" play ;;
  esac
  sleep "$warmup"
  kill -0 "$player_pid" 2>/dev/null || { echo "realtime.sh: $case ended early: $(tail -n 3 "$run/$case.err")" >&2; exit 1; }
  local before after
  before=$(cpu_ns "$player_pid")
  if [[ -n ${PROFILE:-} && $case == playola-* ]]; then
    switches "$player_pid" > "$run/$case.switches.before"
    perf record -q -F 1999 -e cpu-clock -g -p "$player_pid" -o "$run/$case.perf" -- sleep "$window" 2>/dev/null
  else
    sleep "$window"
  fi
  after=$(cpu_ns "$player_pid")
  # The stream's drift loop at the window's end: its correction (clockPPM; absent until it has settled).
  [[ $case == playola-stream* ]] && "$playola" status --json --config "$run/$case.ini" > "$run/$case.status.json" 2>/dev/null
  if [[ -n ${PROFILE:-} && $case == playola-* ]]; then
    switches "$player_pid" > "$run/$case.switches.after"
    cp "/proc/$player_pid/smaps" "$run/$case.smaps"
  fi
  local rss hwm
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$player_pid/status")
  hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$player_pid/status")
  kill "$player_pid"; wait "$player_pid" 2>/dev/null || true
  player_pid=""
  awk -v a="$after" -v b="$before" -v r="$rss" -v h="$hwm" 'BEGIN { printf "%.3f %d %d\n", (a - b) / 1e9, r, h }'
}

declare -A cpu rss hwm sound
failed=()
play() { # case rate hz label command...
  [[ $1 =~ ${CASES:-.} ]] || return 0
  read -r "cpu[$1]" "rss[$1]" "hwm[$1]" < <(measure "$1" "$2" "${@:5}")
  sound[$1]=$(tone_seconds "$1" "$2" "$3")
  if ((sound[$1] < window * 9 / 10)); then failed+=("$1: only ${sound[$1]} s of sound in $((warmup + window)) s ($run/$1.err)"); fi
  row "$1" "$4"
  [[ -n ${PROFILE:-} && $1 == playola-* ]] && profile "$1" >> "$run/profiles.txt"
  return 0
}

khz() { [[ $1 == 44100 ]] && echo 44.1k || echo "$(($1 / 1000))k"; }
per_hour() { awk -v c="$1" -v s="$window" 'BEGIN { printf "%.1f", c * 3600 / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "—" }'; }
row() { # case label
  local vs_mpd="—" vs_mpg="—" verdict="" mpd="" stream=""
  case $1 in
    playola-stream*) mpd=${cpu[mpd-stream]:-}; stream=1; vs_mpg=$(ratio "${cpu[$1]}" "${cpu[mpg123]:-}") ;;
    playola-aac*) mpd=${cpu[mpd-aac]:-} ;;
  esac
  if [[ -n $mpd ]]; then
    vs_mpd=$(ratio "${cpu[$1]}" "$mpd")
    verdict=$(awk -v c="${cpu[$1]}" -v m="$mpd" -v g="${cpu[mpg123]:-0}" -v h="${hwm[$1]}" -v stream="$stream" '
      BEGIN { miss = ""; limit = stream != "" ? 0.5 : 1.0
              if (c > limit * m) miss = miss sprintf(" >%.1f×MPD", limit); if (stream != "" && c > 1.5 * g) miss = miss " >1.5×mpg123"
              if (h > 20 * 1024) miss = miss " >20MiB"; print miss == "" ? "met" : "missed:" miss }')
  fi
  printf "%-40s %8s %8s %8s %7s %9s %7s  %s\n" "$2" "$(per_hour "${cpu[$1]}")" "$((rss[$1] / 1024))" \
    "$((hwm[$1] / 1024))" "$vs_mpd" "$vs_mpg" "${sound[$1]}/$((warmup + window))" "$verdict"
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "Real-time benchmark: $window s measured after $warmup s per case, $(nproc) cores, load $load, $(date -u +%FT%TZ)"
printf "%-40s %8s %8s %8s %7s %9s %7s  %s\n" "case" "cpu s/h" "RSS MiB" "HWM MiB" "vs MPD" "vs mpg123" "sound s" "targets"
play mpg123 44100 440 "mpg123 -o alsa (MP3 stream)" mpg123 -q -o alsa -a bench "$url"
play mpd-stream 44100 440 "MPD 0.23 (MP3 stream)" mpd --no-daemon "$(mpd_conf mpd-stream)"
for rate in 44100 48000; do
  play "playola-stream-$rate" "$rate" 440 "playola run (MP3 stream) → $(khz "$rate")" \
    "$playola" run --config "$(playola_conf "playola-stream-$rate" "$rate" "type = stream" "url = $url")"
done
play mpd-aac 44100 0 "MPD 0.23 (AAC 44.1k station)" mpd --no-daemon "$(mpd_conf mpd-aac)"
for rate in 44100 48000; do
  play "playola-aac-$rate" "$rate" 0 "playola run (AAC 44.1k station) → $(khz "$rate")" \
    "$playola" run --config "$(playola_conf "playola-aac-$rate" "$rate" "type = local" "path = $music")"
done
for status in "$run"/playola-stream-*.status.json; do
  [[ -s $status ]] || continue
  python3 -c 'import json, sys; s = json.load(open(sys.argv[1])).get("stream") or {}
print(sys.argv[2] + ": the drift loop at the window end: clockPPM", s.get("clockPPM", "not yet settled"))' \
    "$status" "$(basename "$status" .status.json)"
done
[[ -s $run/profiles.txt ]] && cat "$run/profiles.txt"
echo "targets (issue 31): playola's CPU ≤ 0.5× MPD's and ≤ 1.5× mpg123's on the stream, ≤ 1.0× MPD's on the AAC station; RSS (peak) ≤ 20 MiB"
if ((${#failed[@]})); then
  printf 'realtime.sh: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
