#!/usr/bin/env bash
# Builds the Debian package with `make deb` and checks it from the outside: control fields, dependencies,
# conffiles, maintainer scripts, every installed path, the binary (runs, no Swift runtime to depend on)
# and the systemd units (systemd-analyze verify).
# Usage: Tests/packaging/test-deb.sh     (SCRATCH_PATH=/tmp/x to build outside .build; KEEP=1 keeps the work dir)
set -uo pipefail
cd "$(dirname "$0")/../.."

. Tests/packaging/checks.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-deb.XXXXXX")
[[ -n "${KEEP:-}" ]] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT

version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/PlayolaEngine/Support/Version.swift)
arch=$(dpkg --print-architecture)

# The INI is written by someone else and may not exist yet: a stand-in outside the repository then.
ini=etc/playola.ini
if [[ ! -f $ini ]]; then
    ini=$work/playola.ini
    printf '[cache]\ndir = /var/cache/playola\nsize = 64M\n' >"$ini"
    echo "note: etc/playola.ini is missing; packaging a stand-in"
fi

make_args=(deb BUILD_DIR="$work/out" INI="$ini")
[[ -n "${SCRATCH_PATH:-}" ]] && make_args+=(SCRATCH_PATH="$SCRATCH_PATH")
if make --no-print-directory "${make_args[@]}" >"$work/make.log" 2>&1; then
    pass "make deb"
else
    fail "make deb" "exit $?"
    tail -n 30 "$work/make.log"
    finish
fi

deb=$work/out/playola_${version}_${arch}.deb
check "make deb made $(basename "$deb")" test -f "$deb"
[[ -f $deb ]] || finish

# --- control ---
field() { dpkg-deb --field "$deb" "$1"; }
same "Package" "$(field Package)" playola
same "Version (from Version.swift)" "$(field Version)" "$version"
same "Architecture" "$(field Architecture)" "$arch"
check "Maintainer is a name and address" grep -Eq '^.+ <[^@ ]+@[^@ ]+>$' <<<"$(field Maintainer)"
check "Description has a synopsis and a long part" test "$(field Description | wc -l)" -ge 2
check "Installed-Size is a number" grep -Eq '^[0-9]+$' <<<"$(field Installed-Size)"
depends=$(field Depends)
echo "     Depends: $depends"
for package in adduser ca-certificates libc6 libasound2 libmpg123-0 libfaad2 libsoxr0 libsndfile1 libcurl4 libinih1 libgpiod2 libmosquitto1; do
    check "Depends on $package" grep -Eq "(^|, )$package( \([^)]*\))?(,|$)" <<<"$depends"
done
check "Depends on no Swift runtime" bash -c '! grep -qi swift <<<"$1"' _ "$depends"

dpkg-deb --control "$deb" "$work/control"
same "conffiles" "$(cat "$work/control/conffiles")" /etc/playola.ini
for script in postinst prerm postrm; do
    file=$work/control/$script
    check "$script is executable" test -x "$file"
    same "$script is POSIX sh" "$(head -n1 "$file")" "#!/bin/sh"
    check "$script sets -e" grep -qx 'set -e' "$file"
    check "$script parses (dash -n)" dash -n "$file"
done
check "postinst creates the system user" grep -q 'adduser --system --group --no-create-home' "$work/control/postinst"
check "postinst creates the gpio group when missing" grep -q 'addgroup --system gpio' "$work/control/postinst"
check "postinst adds playola to audio and gpio" bash -c 'grep -q "adduser playola audio" "$1" && grep -q "adduser playola gpio" "$1"' _ "$work/control/postinst"
check "postinst touches systemd only under systemd" grep -q '\[ -d /run/systemd/system \]' "$work/control/postinst"
# Issue 17: systemd handled as debhelper writes it; systemctl itself only for daemon-reload.
check "postinst enables through deb-systemd-helper" grep -q "deb-systemd-helper enable 'playola.service'" "$work/control/postinst"
check "postinst restarts on upgrade through deb-systemd-invoke" grep -q "deb-systemd-invoke restart 'playola.service'" "$work/control/postinst"
check "prerm stops through deb-systemd-invoke" grep -q "deb-systemd-invoke stop 'playola.service'" "$work/control/prerm"
check "postrm purges the unit's state through deb-systemd-helper" grep -q "deb-systemd-helper purge 'playola.service'" "$work/control/postrm"
check "no systemctl call but daemon-reload in the maintainer scripts" \
    bash -c '! grep -hE "^[^#]*\bsystemctl\b" "$@" | grep -v daemon-reload | grep -q .' _ "$work"/control/{postinst,prerm,postrm}
check "md5sums lists every shipped file" test "$(wc -l <"$work/control/md5sums")" -ge 10
check "postrm purges user and state" bash -c 'grep -q "deluser --system playola" "$1" && grep -q "find /var/lib/playola -mindepth 1 -delete" "$1"' _ "$work/control/postrm"
check "postrm purges the device token" grep -q 'rm -f /etc/playola/token' "$work/control/postrm"

# --- contents ---
dpkg-deb --contents "$deb" >"$work/contents"
# "-rwxr-xr-x root/root 1234 2025-01-01 00:00 ./usr/bin/playola" → "mode owner path"
contents=$(awk '{ mode = $1; owner = $2; $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print mode, owner, $0 }' "$work/contents")
entry() { grep -F " ./${1#/}" <<<"$contents" | grep -E " \./${1#/}$" | head -n1; }
expect_file() { # PATH MODE
    local line
    line=$(entry "$1")
    if [[ -z $line ]]; then fail "ships $1" "missing"; return; fi
    same "ships $1 ($2 root/root)" "${line%% ./*}" "$2 root/root"
}
expect_file /usr/bin/playola -rwxr-xr-x
expect_file /etc/playola.ini -rw-r--r--
expect_file /usr/lib/systemd/system/playola.service -rw-r--r--
expect_file /usr/lib/systemd/system/var-cache-playola.mount -rw-r--r--
expect_file /usr/lib/systemd/system/playola-poweroff.path -rw-r--r--
expect_file /usr/lib/systemd/system/playola-poweroff.service -rw-r--r--
expect_file /usr/lib/modules-load.d/playola.conf -rw-r--r--
for media in demo/media/*; do
    [[ -f $media ]] && expect_file "/usr/share/playola/demo/${media##*/}" -rw-r--r--
done
rules=(udev/*.rules)
if [[ -e ${rules[0]} ]]; then
    for rule in "${rules[@]}"; do expect_file "/usr/lib/udev/rules.d/${rule##*/}" -rw-r--r--; done
else
    check "no udev rules in the repository, none shipped" bash -c '! grep -q "/udev/" <<<"$1"' _ "$contents"
fi
expect_file /usr/share/doc/playola/copyright -rw-r--r--
expect_file /usr/share/doc/playola/changelog.gz -rw-r--r--
expect_file /usr/share/man/man1/playola.1.gz -rw-r--r--
expect_file /usr/share/man/man5/playola.ini.5.gz -rw-r--r--
expect_file /usr/share/bash-completion/completions/playola -rw-r--r--
check "everything owned by root/root" bash -c '! awk "\$2 != \"root/root\"" <<<"$1" | grep -q .' _ "$contents"

# --- the binary ---
dpkg-deb --extract "$deb" "$work/root"
binary=$work/root/usr/bin/playola
check "binary is an executable file" test -x "$binary"
needed=$(objdump -p "$binary" | awk '$1 == "NEEDED" { print $2 }')
echo "     NEEDED: $(echo $needed)"
check "binary does not need libswiftCore.so (static stdlib)" bash -c '! grep -q "^libswiftCore" <<<"$1"' _ "$needed"
check "binary needs no Swift or Foundation library at all" bash -c '! grep -Eqi "swift|foundation|dispatch" <<<"$1"' _ "$needed"
check "every library it needs resolves" bash -c '! ldd "$1" | grep -q "not found"' _ "$binary"
same "packaged binary runs (playola version)" "$("$binary" version 2>&1)" "playola $version"

# --- the documents ---
doc=$work/root/usr/share/doc/playola
same "copyright is machine-readable (DEP-5)" "$(head -n1 "$doc/copyright")" \
    "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
same "changelog's newest entry is this version" "$(zcat "$doc/changelog.gz" | sed -n '1s/^playola (\([^)]*\)).*/\1/p')" "$version"
# The pages render without a warning from man or groff (-ww: all of them), and say something.
for page in man1/playola.1.gz man5/playola.ini.5.gz; do
    file=$work/root/usr/share/man/$page
    MANWIDTH=80 man --warnings -l "$file" >"$work/page.txt" 2>"$work/page.log"
    check "man --warnings -l $page: no warnings" test ! -s "$work/page.log"
    [[ -s $work/page.log ]] && cat "$work/page.log"
    zcat "$file" | groff -ww -man -Tutf8 >/dev/null 2>"$work/page.log"
    check "groff -ww -man $page: no warnings" test ! -s "$work/page.log"
    check "$page renders (more than 40 lines)" test "$(wc -l <"$work/page.txt")" -gt 40
done
check "both pages carry the version ($version), no @VERSION@ left" \
    bash -c '! zgrep -q @VERSION@ "$1"/man1/playola.1.gz && zgrep -q "playola $2" "$1"/man1/playola.1.gz && zgrep -q "playola $2" "$1"/man5/playola.ini.5.gz' _ "$work/root/usr/share/man" "$version"

# The packaged completion, driven as bash-completion drives it.
if Tests/packaging/test-completion.sh "$work/root/usr/share/bash-completion/completions/playola" >"$work/completion.log" 2>&1; then
    pass "bash completion: $(tail -n1 "$work/completion.log")"
else
    fail "bash completion" "$(grep FAIL "$work/completion.log" | paste -sd';' -)"
fi

# --- lintian: Debian's own checks; no error and no warning ---
command -v lintian >/dev/null || {
    echo "note: installing lintian"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lintian >/dev/null 2>&1 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lintian >/dev/null; }
}
lintian --no-tag-display-limit "$deb" >"$work/lintian.log" 2>"$work/lintian.err"
tags=$(grep -cE '^[EW]: ' "$work/lintian.log")
echo "     lintian: $tags tags (errors and warnings)"
grep -E '^[EW]: ' "$work/lintian.log" | sed 's/^/     /'
same "lintian: errors and warnings" "$tags" 0
check "lintian ran on the package" grep -q . <(lintian --print-version 2>/dev/null)

# --- the units ---
unit=$work/root/usr/lib/systemd/system/playola.service
mount=$work/root/usr/lib/systemd/system/var-cache-playola.mount
command -v systemd-analyze >/dev/null || {
    echo "note: installing systemd for systemd-analyze"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null 2>&1 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null; }
}
# verify checks that the programs in Exec*= exist and are executable, and resolves every unit the service
# depends on. Against this machine it would find no /usr/bin/playola; with --root= it looks at a staging
# root instead: this machine's own units (sysinit.target, network-online.target ...) and /bin/sh, with
# the extracted package on top, so the files verified are exactly the packaged ones and nothing is
# installed or copied onto the host.
verify_root=$work/verify-root
mkdir -p "$verify_root/usr/lib/systemd/system" "$verify_root/bin"
cp -a /lib/systemd/system/. "$verify_root/usr/lib/systemd/system/"
cp -a "$work/root/." "$verify_root/"
cp /bin/sh "$verify_root/bin/sh"
mkdir -p "$verify_root/usr/bin" && cp /usr/bin/systemctl "$verify_root/usr/bin/systemctl"
# Unknown keys and similar mistakes are only warnings (exit 0), so any output at all fails.
if systemd-analyze verify --root="$verify_root" /usr/lib/systemd/system/playola.service \
    /usr/lib/systemd/system/var-cache-playola.mount /usr/lib/systemd/system/playola-poweroff.path \
    /usr/lib/systemd/system/playola-poweroff.service >"$work/verify.log" 2>&1 && [[ ! -s $work/verify.log ]]; then
    pass "systemd-analyze verify (service, mount and power-off units, no warnings)"
else
    fail "systemd-analyze verify" "$(tr '\n' ' ' <"$work/verify.log")"
fi
setting() { grep -E "^$2=" "$1" | cut -d= -f2-; }
same "Type" "$(setting "$unit" Type)" notify
same "ExecStart (the INI found by the service: the boot partition's, else /etc's)" "$(setting "$unit" ExecStart)" "/usr/bin/playola run"
same "RestartPreventExitStatus (a start-up fault is not restarted in a loop)" "$(setting "$unit" RestartPreventExitStatus)" "2 78"
same "WatchdogSec" "$(setting "$unit" WatchdogSec)" 10
same "User" "$(setting "$unit" User)" playola
same "DeviceAllow" "$(setting "$unit" DeviceAllow | paste -sd';' -)" "char-alsa rw;char-gpiochip rw"
same "RequiresMountsFor" "$(setting "$unit" RequiresMountsFor)" /var/cache/playola
same "mount Where" "$(setting "$mount" Where)" /var/cache/playola

# The sandbox, scored by systemd itself: 10 is unconfined, 0 fully confined. The issue's bound is 2.0.
if score=$(systemd-analyze security --offline=true --root="$verify_root" /usr/lib/systemd/system/playola.service 2>&1 |
    sed -n 's/.*Overall exposure level for playola.service: \([0-9.]*\).*/\1/p') && [[ -n $score ]]; then
    echo "     systemd-analyze security: exposure $score"
    check "systemd-analyze security exposure $score <= 2.0" awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'
else
    fail "systemd-analyze security" "no score"
fi
check "no real-time priority asked for while RestrictRealtime= forbids it" bash -c '! grep -q "^LimitRTPRIO=" "$1" && grep -qx "RestrictRealtime=yes" "$1"' _ "$unit"

# The cache evicts to `[cache] size`; a tmpfs smaller than that would fail downloads instead.
bytes() { numfmt --from=iec "${1^^}"; }
tmpfs_size=$(setting "$mount" Options | tr ',' '\n' | sed -n 's/^size=//p')
cache_size=$(awk -F= '/^\[/ { section = $0 } section == "[cache]" && $1 ~ /^[ \t]*size[ \t]*$/ { gsub(/[ \t]/, "", $2); print $2 }' \
    "$work/root/etc/playola.ini")
if [[ -n $cache_size ]]; then
    check "tmpfs size=$tmpfs_size holds [cache] size=$cache_size" test "$(bytes "$tmpfs_size")" -ge "$(bytes "$cache_size")"
else
    echo "note: the INI sets no [cache] size; the default is 64M"
    check "tmpfs size=$tmpfs_size holds the default cache size 64M" test "$(bytes "$tmpfs_size")" -ge "$(bytes 64M)"
fi
# The tmpfs pages the service writes are charged to its cgroup: MemoryMax must leave the full cache plus a
# working set (measured peak RSS well under 64 MiB) or a full cache would get the service killed.
memory_max=$(setting "$unit" MemoryMax)
check "MemoryMax=$memory_max holds the tmpfs ($tmpfs_size) plus 128M" test "$(bytes "$memory_max")" -ge "$(( $(bytes "$tmpfs_size") + $(bytes 128M) ))"

finish
