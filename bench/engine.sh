#!/usr/bin/env bash
# Engine benchmark: CPU seconds per hour of audio and peak RSS of `playola render` to the null sink,
# side by side with the tools a user would pick instead, on the same files, in one run.
#   MP3 48 kHz:   playola vs mpg123 into ALSA's null device
#   M4A 44.1 kHz: playola (AAC → resample to 48 kHz → mix, and mixed at 44.1 kHz without resampling)
#                 vs faad (same libfaad2) and ffmpeg -f null
#   Overlap:      two MP3 spins playing at once for the whole stretch, vs mpg123 on one of them
#   Tone:         the M4A at 44.1 kHz again with bass +6 dB and treble -3 dB (both shelves on), beside flat
# Usage: bench/engine.sh [MINUTES]   (default 20 minutes of audio per case)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-20}
seconds=$((minutes * 60))
script/setup --bench
swift build -c release --product playola --static-swift-stdlib >/dev/null
playola=$(pwd)/.build/release/playola
work=bench/runs
mkdir -p "$work"

# Music-like content: pink noise under a few moving tones, so the codecs have real work to do.
content="anoisesrc=color=pink:amplitude=0.15:sample_rate=RATE:duration=$seconds[n];sine=f=220:sample_rate=RATE:duration=$seconds[a];sine=f=331:sample_rate=RATE:duration=$seconds[b];[n][a][b]amix=inputs=3,aformat=channel_layouts=stereo"
make() { # rate codec file
  [[ -s "$3" ]] && return
  local args=(-c:a libmp3lame -b:a 192k)
  [[ $2 == aac ]] && args=(-c:a aac -b:a 192k)
  ffmpeg -v error -y -filter_complex "${content//RATE/$1}" "${args[@]}" "$3"
}
make 48000 mp3 "$work/long48-$seconds.mp3"
content=${content//f=220/f=277}; make 48000 mp3 "$work/long48b-$seconds.mp3"
make 44100 aac "$work/long44-$seconds.m4a"

schedule() { # out file1 [file2]
  python3 - "$@" "$seconds" <<'PY'
import json, sys
out, files, seconds = sys.argv[1], sys.argv[2:-1], int(sys.argv[-1])
json.dump([{"id": f"bench-{i}", "stationId": "bench", "airtime": "2025-01-01T00:00:00Z", "startingVolume": 0.7,
            "fades": [], "audioBlock": {"id": f"b{i}", "title": f, "artist": "bench", "durationMS": seconds * 1000,
            "endOfMessageMS": seconds * 1000, "downloadUrl": "file:///" + f}} for i, f in enumerate(files)], open(out, "w"))
PY
}
schedule "$work/mp3.json" "long48-$seconds.mp3"
schedule "$work/m4a.json" "long44-$seconds.m4a"
schedule "$work/overlap.json" "long48-$seconds.mp3" "long48b-$seconds.mp3"

# Prints "cpu_seconds peak_rss_kib" of a command: the least CPU of three runs (a shared machine only
# ever adds time), and the largest RSS.
measure() {
  : > "$work/times.txt"
  for _ in 1 2 3; do
    /usr/bin/time -o "$work/time.txt" -f "%U %S %M" "$@" >/dev/null 2>&1
    cat "$work/time.txt" >> "$work/times.txt"
  done
  awk 'NR == 1 || $1 + $2 < cpu { cpu = $1 + $2 } $3 > rss { rss = $3 } END { printf "%.2f %d\n", cpu, rss }' "$work/times.txt"
}
# The appliance's default, `rate = auto`, mixes this content at 44.1 kHz on a device that takes it; a 48 kHz-only
# device has it resampled (soxr's 16-bit recipe).
render() { echo "$playola" render --schedule "$work/$1.json" --media "$work" --from 2025-01-01T00:00:00Z --duration "$seconds" --out null --rate "${2:-48000}" ${3:-}; }

row() { # label cpu rss baseline_cpu
  local per_hour ratio
  per_hour=$(awk -v c="$2" -v s="$seconds" 'BEGIN{printf "%.1f", c * 3600 / s}')
  ratio=$(awk -v c="$2" -v b="$4" 'BEGIN{ if (b > 0) printf "%.2f×", c / b; else print "—" }')
  printf "%-44s %10s %10s %9s\n" "$1" "$per_hour" "$(($3 / 1024))" "$ratio"
}

echo "Engine benchmark: $minutes min of audio per case on $(nproc) cores, $(date -u +%FT%TZ)"
printf "%-44s %10s %10s %9s\n" "case" "cpu s/h" "RSS MiB" "vs base"
read -r mpg_cpu mpg_rss < <(measure mpg123 -q -o alsa -a null "$work/long48-$seconds.mp3")
read -r p_cpu p_rss < <(measure $(render mp3))
row "mpg123 -o alsa -a null (MP3 48k, base)" "$mpg_cpu" "$mpg_rss" "$mpg_cpu"
row "playola render (MP3 48k)" "$p_cpu" "$p_rss" "$mpg_cpu"
read -r faad_cpu faad_rss < <(measure faad -q -o /dev/null "$work/long44-$seconds.m4a")
read -r ff_cpu ff_rss < <(measure ffmpeg -v error -i "$work/long44-$seconds.m4a" -f null -)
read -r a_cpu a_rss < <(measure $(render m4a))
row "faad -o /dev/null (M4A 44.1k, base)" "$faad_cpu" "$faad_rss" "$faad_cpu"
row "ffmpeg -f null (M4A 44.1k, reference)" "$ff_cpu" "$ff_rss" "$faad_cpu"
row "playola render (M4A 44.1k, 48k-only device)" "$a_cpu" "$a_rss" "$faad_cpu"
read -r n_cpu n_rss < <(measure $(render m4a 44100))
row "playola render (M4A 44.1k, default rate)" "$n_cpu" "$n_rss" "$faad_cpu"
read -r t_cpu t_rss < <(measure $(render m4a 44100 "--bass 6 --treble -3"))
row "  the same, bass +6 dB and treble -3 dB" "$t_cpu" "$t_rss" "$faad_cpu"
read -r o_cpu o_rss < <(measure $(render overlap))
row "playola render (two MP3 48k overlapping)" "$o_cpu" "$o_rss" "$mpg_cpu"
echo "targets: MP3 ≤ 1.2× mpg123, M4A ≤ 1.2× faad, overlap ≤ 2.2× mpg123, RSS < 24 MiB"
