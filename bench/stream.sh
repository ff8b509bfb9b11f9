#!/usr/bin/env bash
# Stream benchmark (issue #7): CPU seconds per hour and peak RSS of `playola run` playing an internet-radio
# stream, side by side with mpg123 playing the same stream, in one run.
#   The stream: /tone.mp3 of a real icecast2 on 127.0.0.1 (Tests/Support/icecast_harness.py: ffmpeg loops a
#   440 Hz sine, MP3 128 kbps CBR, 44.1 kHz stereo, ICY titles changing every 4 s).
#   The output: ALSA's null device behind the file plugin, which writes into `pv -L` at the real-time byte rate
#   (null alone takes samples as fast as they come; a sound card would pace them). Both players go through the
#   same PCM; pv runs inside each measured process tree (alsa-lib starts it), so both pay for it. The captures
#   also show that each player really played the stream: the "tone s" column counts the seconds of 440 Hz.
# Usage: bench/stream.sh [SECONDS]   (default 60 seconds of listening per case)
#   SWIFT_SCRATCH=DIR builds into DIR (swift build --scratch-path) instead of .build (bench/common.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
. bench/common.sh
bench_run_dir stream
build_playola

start_icecast
trap 'kill "$harness_pid" 2>/dev/null || true; wait "$harness_pid" 2>/dev/null || true; rm -f "$run"/*.raw' EXIT

playola_conf() { # case rate
  mkdir -p "$run/$1"
  cat > "$run/$1.ini" <<EOF
[player]
station = bench
device = bench
volume = 100
rate = $2

[service]
socket = $run/$1/control.sock
state_dir = $run/$1/state

[cache]
dir = $run/$1/cache
size = 16M

[station bench]
type = stream
url = $url
EOF
}

# Prints "cpu_seconds peak_rss_kib exit_status" of one run of a command (environment assignments first).
measure() { # case command...
  local status=0
  /usr/bin/time -o "$run/$1.time" -f "%U %S %M" env "${@:2}" >"$run/$1.out" 2>"$run/$1.log" || status=$?
  tail -n 1 "$run/$1.time" | awk -v s="$status" '{ printf "%.2f %d %d\n", $1 + $2, $3, s }'
}

row() { # label cpu rss baseline_cpu tone_seconds (or "")
  local per_hour ratio tone
  per_hour=$(awk -v c="$2" -v s="$seconds" 'BEGIN{printf "%.1f", c * 3600 / s}')
  ratio=$(awk -v c="$2" -v b="$4" 'BEGIN{ if (b > 0) printf "%.2f×", c / b; else print "—" }')
  tone=${5:+$5/$seconds}
  printf "%-44s %10s %10s %9s %8s\n" "$1" "$per_hour" "$(($3 / 1024))" "$ratio" "${tone:-—}"
}

failed=()
check() { # case tone_seconds exit_status expected_status what
  if (($2 < seconds * 8 / 10)); then failed+=("$1: only $2 of $seconds s of the tone (exit status $3; $run/$1.log)"); fi
  if [[ $3 != "$4" ]]; then failed+=("$1: exit status $3, expected $4 ($5; $run/$1.log)"); fi
}

echo "Stream benchmark: $url for $seconds s per case on $(nproc) cores, $(date -u +%FT%TZ)"
printf "%-44s %10s %10s %9s %8s\n" "case" "cpu s/h" "RSS MiB" "vs base" "tone s"

# The pacing alone (pv, counted in every case below), measured at the same time as mpg123 plays.
( /usr/bin/time -o "$run/pv.time" -f "%U %S %M" pv -q -B 8820 -L 176400 -S -s "$((seconds * 176400))" /dev/zero >/dev/null ) &
pv_pid=$!
# mpg123 stops by itself after SECONDS worth of frames (1152 samples at 44.1 kHz); exit status 0 = it played them.
read -r m_cpu m_rss m_status < <(measure mpg123 ALSA_CONFIG_PATH="$(alsa_conf mpg123 44100)" \
  mpg123 -q -n "$(((seconds * 44100 + 1151) / 1152))" -o alsa -a bench "$url")
m_tone=$(tone_seconds mpg123 44100)
row "mpg123 -o alsa (MP3 stream 44.1k, base)" "$m_cpu" "$m_rss" "$m_cpu" "$m_tone"
check mpg123 "$m_tone" "$m_status" 0 "plays its frames and exits"
wait "$pv_pid"

for rate in 44100 48000; do
  name=playola$((rate / 1000))
  playola_conf "$name" "$rate"
  # Halfway through, the service's status: the station's state and the stream's title.
  (sleep "$((seconds / 2))"; "$playola" status --json --socket "$run/$name/control.sock" >"$run/$name.status.json" 2>&1 || true) &
  status_pid=$!
  read -r p_cpu p_rss p_status < <(measure "$name" ALSA_CONFIG_PATH="$(alsa_conf "$name" "$rate")" \
    "$playola" run --config "$run/$name.ini" --for "$seconds")
  wait "$status_pid"
  p_tone=$(tone_seconds "$name" "$rate")
  label="playola run (MP3 stream, mixed at 44.1k)"
  [[ $rate == 48000 ]] && label="playola run (MP3 stream, resampled to 48k)"
  row "$label" "$p_cpu" "$p_rss" "$m_cpu" "$p_tone"
  check "$name" "$p_tone" "$p_status" 0 "--for stops cleanly"
done

read -r v_cpu v_rss < <(awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$run/pv.time")
row "(pv -L alone: the pacing, included above)" "$v_cpu" "$v_rss" "$m_cpu" ""
echo "for reference, bench/engine.sh's targets for files: ≤ 1.2× mpg123 CPU, RSS < 24 MiB"
echo "playola status halfway (44.1k): $(tr -d '\n' <"$run/playola44.status.json" | cut -c1-400)"
grep -ihE "now playing|stream|error|warning" "$run/playola44.log" | head -n 5 | sed 's/^/playola log (44.1k): /' || true
if ((${#failed[@]})); then
  printf 'stream.sh: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
