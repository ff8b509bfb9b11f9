#!/usr/bin/env bash
# Only root steers RAUC (issue 38): the real dbus-daemon on Debian's own system.conf, its policy folders holding
# rauc-service's policy (which lets anyone call RAUC) and, for the image, image/files/etc/dbus-1/system.d's
# override; a real RAUC service of throwaway file slots owning de.pengutronix.rauc on it. An unprivileged user
# (nobody) calling InstallBundle or Mark, or running `rauc status`, is refused with AccessDenied; root's calls
# reach RAUC. The same bus without the override lets nobody through, so the test can fail.
# Usage (as root): Tests/update/test-rauc-policy.sh   Needs script/setup --update (rauc, rauc-service, dbus-daemon).
set -uo pipefail
cd "$(dirname "$0")/../.."
. Tests/packaging/checks.sh
. Tests/update/rauc-service.sh

[[ $(id -u) -eq 0 ]] || { echo "test-rauc-policy: needs root (the bus and RAUC run as root, the calls as nobody)" >&2; exit 1; }
rauc_policy=/usr/share/dbus-1/system.d/de.pengutronix.rauc.conf
[[ -f $rauc_policy ]] || { echo "test-rauc-policy: no $rauc_policy (script/setup --update installs rauc-service)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-rauc-policy.XXXXXX")
chmod 755 "$work"
bus_pid="" service_pid=""
stop() {
    [[ -n $service_pid ]] && kill "$service_pid" 2>/dev/null && wait "$service_pid" 2>/dev/null
    [[ -n $bus_pid ]] && kill "$bus_pid" 2>/dev/null && wait "$bus_pid" 2>/dev/null
    service_pid="" bus_pid=""
}
trap 'stop; rm -rf "$work"' EXIT

# Debian's system.conf, as the image's dbus-daemon reads it, listening here instead, without forking or changing
# user, its two policy folders this test's: RAUC's policy in the first, the image's override (or nothing) in the
# second, in the order the real one reads them.
mkdir -p "$work/share.d" "$work/etc.d"
cp "$rauc_policy" "$work/share.d/"
sed -e "s|<listen>.*</listen>|<listen>unix:path=$work/bus.socket</listen>|" \
    -e '/<fork\/>/d' -e '/<pidfile>/d' -e '/<user>/d' -e '/<syslog\/>/d' -e '/<standard_system_servicedirs\/>/d' \
    -e "s|<includedir>system.d</includedir>|<includedir>$work/share.d</includedir>|" \
    -e "s|<includedir>/etc/dbus-1/system.d</includedir>|<includedir>$work/etc.d</includedir>|" \
    -e '/<include .*>\/etc\/dbus-1\//d' -e '/<include if_selinux_enabled/d' \
    /usr/share/dbus-1/system.conf >"$work/system.conf"
grep -q "$work/etc.d" "$work/system.conf" || { echo "test-rauc-policy: Debian's system.conf has no /etc/dbus-1/system.d folder to point here" >&2; exit 1; }
truncate -s 8M "$work/slot-a" "$work/slot-b"
{ printf '[system]\ncompatible=playola-test\nbootloader=custom\n[handlers]\nbootloader-custom-backend=%s\n' "$work/backend"
  file_slots "$work"; } >"$work/rauc.conf"
printf '#!/bin/sh\ncase $1 in get-primary|get-current) echo A ;; get-state) echo good ;; esac\nexit 0\n' >"$work/backend"
chmod +x "$work/backend"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus.socket

start() { # the bus and RAUC on it, with the override in etc.d or without
    rm -f "$work/etc.d/"*
    [[ $1 == with ]] && cp image/files/etc/dbus-1/system.d/*.conf "$work/etc.d/"
    dbus-daemon --config-file="$work/system.conf" --nofork >"$work/bus.log" 2>&1 &
    bus_pid=$!
    for _ in $(seq 100); do [[ -S $work/bus.socket ]] && break; sleep 0.1; done
    rauc --conf="$work/rauc.conf" --override-boot-slot=A service >"$work/service.log" 2>&1 &
    service_pid=$!
    for _ in $(seq 100); do rauc status >/dev/null 2>&1 && return 0; sleep 0.2; done
    fail "RAUC's service on the bus ($1 the override)" "$(tail -3 "$work/service.log" "$work/bus.log" | tr '\n' ' ')"
    return 1
}
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
call=(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call de.pengutronix.rauc / de.pengutronix.rauc.Installer)
denied() { # DESCRIPTION COMMAND...: refused by the bus
    if "${@:2}" >"$work/out" 2>&1; then fail "$1" "it answered: $(head -c 300 "$work/out")"
    elif grep -qi 'access denied\|AccessDenied\|Rejected send message' "$work/out"; then pass "$1"
    else fail "$1" "refused, but not by the bus: $(head -c 300 "$work/out")"; fi
}
reached() { # DESCRIPTION COMMAND...: RAUC took the call and answered it
    local status=0
    "${@:2}" >"$work/out" 2>&1 || status=$?
    if ((status != 0)); then fail "$1" "exit $status: $(head -c 300 "$work/out")"
    elif grep -qi 'access denied\|AccessDenied\|Rejected send message' "$work/out"; then fail "$1" "the bus refused it: $(head -c 300 "$work/out")"
    else pass "$1 ($(tr '\n' ' ' <"$work/out" | cut -c1-120))"; fi
}

if start with; then
    denied "nobody's InstallBundle is refused by the bus" as_nobody "${call[@]}" InstallBundle 'sa{sv}' "$work/any.raucb" 1 ignore-compatible b true
    denied "nobody's Mark active other is refused by the bus" as_nobody "${call[@]}" Mark ss active other
    denied "nobody's rauc status is refused by the bus" as_nobody rauc status
    reached "root's Mark reaches RAUC" "${call[@]}" Mark ss good booted
    reached "root's InstallBundle reaches RAUC" "${call[@]}" InstallBundle 'sa{sv}' "$work/none.raucb" 0
    if rauc status >"$work/out" 2>&1; then pass "root's rauc status answers"; else fail "root's rauc status answers" "$(head -c 300 "$work/out")"; fi
fi
stop
if start without; then
    reached "without the override, nobody's Mark reaches RAUC (the hole the override closes)" as_nobody "${call[@]}" Mark ss good booted
fi
stop
finish
