#!/usr/bin/env bash
# The floor under rendering an AAC file into a 48 kHz mix (issue 31): the appliance's decode without resampling
# (`playola render` at the file's 44.1 kHz, nearly all of it libfaad) plus libsoxr alone resampling the same
# audio (bench/resample-floor/soxr.c, as Resampler.swift calls it), beside `faad` and `playola render` at
# 48 kHz, in one run. CPU seconds: the least of three runs.
# Usage: bench/resample-floor.sh [MINUTES]   (the M4A bench/engine.sh MINUTES makes; default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-20}
seconds=$((minutes * 60))
work=bench/runs
m4a=$work/long44-$seconds.m4a
[[ -s $m4a && -s $work/m4a.json ]] || { echo "$0: run bench/engine.sh $minutes first (it makes $m4a)" >&2; exit 1; }
source bench/common.sh
build_playola
bench_run_dir resample-floor
gcc -O2 -Wall -o "$run/soxr" bench/resample-floor/soxr.c -lsoxr
# The same decoded audio soxr is given in the appliance: faad's Float32 output, raw, stereo.
faad -q -f 2 -b 4 -o "$run/decoded.raw" "$m4a"

least() { # command...: the least CPU seconds (user + system) of three runs
  for _ in 1 2 3; do
    /usr/bin/time -f "%U %S" -o "$run/time.txt" "$@" >/dev/null 2>&1
    awk '{ print $1 + $2 }' "$run/time.txt"
  done | sort -n | head -n 1
}
render=("$playola" render --schedule "$work/m4a.json" --media "$work" --from 2025-01-01T00:00:00Z --duration "$seconds" --out null --rate)
faad_cpu=$(least faad -q -o /dev/null "$m4a")
decode_cpu=$(least "${render[@]}" 44100)
render48_cpu=$(least "${render[@]}" 48000)
soxr_cpu=$(for _ in 1 2 3; do "$run/soxr" "$run/decoded.raw" 44100 48000 | cut -d' ' -f1; done | sort -n | head -n 1)
rm -f "$run/decoded.raw"

echo "Resampling floor: $minutes min of 44.1 kHz AAC, $(nproc) cores, $(date -u +%FT%TZ)"
row() { awk -v l="$1" -v c="$2" -v f="$faad_cpu" -v s="$seconds" 'BEGIN { printf "| %s | %.1f | %.2f× |\n", l, c * 3600 / s, c / f }'; }
echo "| what | CPU s/h | vs faad |"
echo "|---|---:|---:|"
row "faad -o /dev/null (the base)" "$faad_cpu"
row "playola render at 44.1 kHz: decode and mix, no resampling" "$decode_cpu"
row "libsoxr alone, 44.1 → 48 kHz, the appliance's recipe and calls" "$soxr_cpu"
row "**the floor: the two above**" "$(awk -v a="$decode_cpu" -v b="$soxr_cpu" 'BEGIN { print a + b }')"
row "playola render at 48 kHz" "$render48_cpu"
