#!/usr/bin/env bash
# The floor under the fleet's memory (issue 32): what Debian's libmosquitto1 costs a process's VmRSS before it
# connects, since it links OpenSSL (libssl3, libcrypto3), which the dynamic loader maps and relocates with it.
# Two tables: a process with nothing else loaded (a box playing a local station), and one with libcurl loaded
# first (a box playing a stream or a Playola station, which has OpenSSL mapped already).
# Usage: bench/fleet-floor.sh   (needs gcc, libmosquitto1, libcurl4, ca-certificates)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O2 -Wall -o "$out/floor" bench/fleet-floor/floor.c -ldl
echo "### A process with nothing else loaded"
"$out/floor"
echo
echo "### libcurl loaded first"
"$out/floor" libcurl.so.4
