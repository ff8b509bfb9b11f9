#!/usr/bin/env bash
# Makes bench/symbol-order.txt, the functions of the playola binary that run while `playola run` starts and
# plays, which the release link places first (Package.swift: lld --symbol-ordering-file). The kernel maps a
# binary's code in large pieces around each page touched (fault-around, and whole large folios on recent
# kernels), so ~550 KiB of code that runs, scattered through 9.7 MiB of text, kept 5.6 MiB of it resident;
# gathered, 4.2 MiB (bench/PROFILE.md, "Memory"). What is not listed keeps its place, so a stale list only
# costs memory, never correctness: run this again after large changes.
# It plays bench/realtime.sh's two cases (the Icecast MP3 stream, the local station of AAC files) under
# valgrind's callgrind for SECONDS each, and lists every function of the binary that ran (mangled, sorted).
# Usage: bench/symbol-order.sh [SECONDS]      (default 45; needs valgrind: script/setup --bench)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-45}
. bench/common.sh
bench_run_dir symbol-order
build_playola

start_icecast
cleanup() { kill "$harness_pid" 2>/dev/null || true; wait "$harness_pid" 2>/dev/null || true; rm -f "$run"/*.raw; }
trap cleanup EXIT
music=$(bench_aac_station)

# valgrind cannot read the toolchain's DWARF 5; the symbol table is all it needs.
strip --strip-debug -o "$run/playola" "$playola"

conf() { # case station-lines...
  mkdir -p "$run/$1"
  {
    printf '[player]\nstation = bench\ndevice = bench\nvolume = 100\nrate = auto\n\n'
    printf '[service]\nsocket = %s\nstate_dir = %s\n\n' "$run/$1/control.sock" "$run/$1/state"
    printf '[cache]\ndir = %s\nsize = 16M\n\n[station bench]\n' "$run/$1/cache"
    printf '%s\n' "${@:2}"
  } > "$run/$1.ini"
  echo "$run/$1.ini"
}
for case in stream aac; do
  if [[ $case == stream ]]; then ini=$(conf "$case" "type = stream" "url = $url"); else ini=$(conf "$case" "type = local" "path = $music"); fi
  # Interrupted after SECONDS (callgrind writes its profile as playola exits).
  ALSA_CONFIG_PATH="$(alsa_conf "$case" 44100)" timeout -s INT "$seconds" valgrind --tool=callgrind \
    --callgrind-out-file="$run/$case.callgrind" --dump-instr=no --compress-strings=no --demangle=no \
    "$run/playola" run --config "$ini" >"$run/$case.out" 2>"$run/$case.err" || true
  grep -q 'now playing' "$run/$case.err" || { echo "symbol-order.sh: $case did not play ($run/$case.err)" >&2; exit 1; }
done

# callgrind names each function of an object ("ob=") on an "fn=" line; a name seen in two places gets a
# "'2" suffix.
awk -v binary="$run/playola" '/^ob=/ { ob = substr($0, 4) } /^fn=/ && ob == binary { name = substr($0, 4); sub(/\x27[0-9]+$/, "", name); print name }' \
  "$run"/*.callgrind | LC_ALL=C sort -u > bench/symbol-order.txt
echo "bench/symbol-order.txt: $(wc -l < bench/symbol-order.txt) functions"
