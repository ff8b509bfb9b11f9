# Helpers shared by bench/stream.sh and bench/realtime.sh (sourced; they expect $run, a run directory).

# Writes an ALSA configuration with a PCM "bench" at RATE: the player's samples go through `plug` (to S16
# stereo at RATE) into the null device behind the file plugin, which writes them into `pv -L` at the
# real-time byte rate, capturing into $run/CASE.raw (null alone takes samples as fast as they come; a
# sound card would pace them). pv is a child of the player's process, started by alsa-lib.
# Prints the ALSA_CONFIG_PATH that selects it.
alsa_conf() { # case rate
  cat > "$run/$1.asound.conf" <<CONF
pcm.bench {
    type plug
    slave { pcm "bench_paced"; format S16_LE; rate $2; channels 2 }
}
pcm.bench_paced {
    type file
    slave.pcm "null"
    file "|exec pv -q -B $(($2 / 5)) -L $(($2 * 4)) > $run/$1.raw"
    format "raw"
}
CONF
  echo "/usr/share/alsa/alsa.conf:$run/$1.asound.conf"
}

# Seconds of a capture (S16 stereo at RATE) that hold a tone of HZ (left channel: zero crossings per
# second within 5 or 1.25 %, and not quiet), or, with HZ = 0, that hold sound at all (peak above -30 dBFS).
tone_seconds() { # case rate [hz]
  python3 - "$run/$1.raw" "$2" "${3:-440}" <<'PY'
import array, sys
samples = array.array("h")
with open(sys.argv[1], "rb") as f:
    samples.frombytes(f.read())
rate, hz, left = int(sys.argv[2]), int(sys.argv[3]), samples[::2]
good = 0
for start in range(0, len(left) - rate + 1, rate):
    second = left[start:start + rate]
    loud = max(second) > 1000
    if hz == 0:
        good += loud
    else:
        crossings = sum(1 for a, b in zip(second, second[1:]) if a < 0 <= b)
        good += abs(crossings - hz) <= max(5, hz // 80) and loud
print(good)
PY
}

# Installs the benchmark tools and builds the release playola; sets $playola to it.
#   SWIFT_SCRATCH=DIR builds into DIR (swift build --scratch-path) instead of .build.
build_playola() {
  script/setup --bench
  local scratch=()
  [[ -n "${SWIFT_SCRATCH:-}" ]] && scratch=(--scratch-path "$SWIFT_SCRATCH")
  swift build -c release --product playola --static-swift-stdlib "${scratch[@]}" >/dev/null
  playola=$(swift build -c release --product playola --static-swift-stdlib "${scratch[@]}" --show-bin-path)/playola
}

# Makes (once) a local station of three 50 s AAC 44.1 kHz files, music-like (pink noise under two tones,
# 192 kbps), in bench/runs/aac-station; prints its absolute path.
bench_aac_station() {
  local music=bench/runs/aac-station tone file
  mkdir -p "$music"
  for tone in 220 277 330; do
    file=$music/track-$tone.m4a
    [[ -s $file ]] || ffmpeg -v error -y -filter_complex \
      "anoisesrc=color=pink:amplitude=0.15:sample_rate=44100:duration=50[n];sine=f=$tone:sample_rate=44100:duration=50[a];sine=f=$((tone * 3 / 2)):sample_rate=44100:duration=50[b];[n][a][b]amix=inputs=3,aformat=channel_layouts=stereo" \
      -c:a aac -b:a 192k "$file"
  done
  (cd "$music" && pwd)
}

# Makes this run's directory, bench/runs/NAME.XXXXXX, as $run.
bench_run_dir() { # name
  mkdir -p bench/runs
  run=$(mktemp -d "$PWD/bench/runs/$1.XXXXXX")
}

# Starts a real icecast2 on 127.0.0.1 (Tests/Support/icecast_harness.py) and sets $harness_pid and $url (its
# /tone.mp3). The harness ends when its standard input (this script's end of the coprocess pipe) closes;
# callers also kill it on exit.
start_icecast() {
  coproc HARNESS { exec python3 Tests/Support/icecast_harness.py --exit-on-stdin-eof 2>"$run/harness.log"; }
  harness_pid=$HARNESS_PID
  local ready port
  read -r -t 60 -u "${HARNESS[0]}" ready || { echo "$0: the icecast harness did not start:" >&2; cat "$run/harness.log" >&2; exit 1; }
  port=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["port"])' "$ready")
  url="http://127.0.0.1:$port/tone.mp3"
}
