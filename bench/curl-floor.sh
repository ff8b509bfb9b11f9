#!/usr/bin/env bash
# The floor under a stream's memory (issue 31): what Debian's libcurl costs a process's VmRSS for one
# plain-http transfer, loaded as the appliance loads it (the stream's VmRSS is bench/realtime.sh's). Debian's
# libcurl links ~30 libraries (OpenSSL, GnuTLS through librtmp and libldap, Kerberos, SASL, libssh2, nghttp2,
# ...) and initialises OpenSSL and libssh2 in `curl_global_init`, whatever the URL. The GnuTLS flavour
# (libcurl3-gnutls), where installed, is measured too.
# Usage: bench/curl-floor.sh   (needs gcc, libcurl4, icecast2: script/setup --bench)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
bench_run_dir curl-floor
gcc -O2 -Wall -o "$run/floor" bench/curl-floor/floor.c -ldl
start_icecast
trap 'kill "$harness_pid" 2>/dev/null || true' EXIT
echo "Debian: $(cat /etc/debian_version); libcurl: $(dpkg-query -W -f='${Version}' libcurl4 2>/dev/null || echo '?'); $(date -u +%FT%TZ)"
echo
echo "### libcurl4 (OpenSSL), the appliance's"
"$run/floor" "$url" 10
if [[ -e /usr/lib/$(gcc -print-multiarch)/libcurl-gnutls.so.4 ]]; then
  echo
  echo "### libcurl3-gnutls"
  "$run/floor" "$url" 10 libcurl-gnutls.so.4
fi
