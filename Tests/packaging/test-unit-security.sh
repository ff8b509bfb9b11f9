#!/usr/bin/env bash
# Every systemd service unit of the package (etc/systemd) and of the image (image/files), scored by
# `systemd-analyze security --offline=true` (10 is unconfined, 0 fully confined): each must score 2.0 or
# less, and doc/image.md's table (unit, user, exposure) must give the figure measured here.
set -uo pipefail
cd "$(dirname "$0")/../.."
. Tests/packaging/checks.sh

command -v systemd-analyze >/dev/null || { echo "test-unit-security: needs systemd-analyze (systemd)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-unit-security.XXXXXX")
trap 'rm -rf "$work"' EXIT

units=$(ls etc/systemd/*.service image/files/usr/lib/systemd/system/*.service)
[[ -n $units ]] || { fail "units found"; finish; }
for unit in $units; do
    name=$(basename "$unit")
    # A template is scored as an instance of itself.
    instance=${name/@./@wlan0.}
    cp "$unit" "$work/$instance"
    score=$(systemd-analyze security --offline=true "$work/$instance" 2>&1 |
        sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    if [[ -z $score ]]; then
        fail "$name: scored" "$(systemd-analyze security --offline=true "$work/$instance" 2>&1 | tail -n 3 | tr '\n' ' ')"
        continue
    fi
    check "$name: exposure $score <= 2.0" awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'
    readme=$(awk -F'|' -v n="\`$name\`" '$2 ~ n { gsub(/[ \t]/, "", $4); print $4 }' doc/image.md)
    same "$name: doc/image.md's figure" "$readme" "$score"
done
finish
