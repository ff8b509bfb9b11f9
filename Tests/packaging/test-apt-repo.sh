#!/usr/bin/env bash
# The apt route as a Raspberry Pi OS owner takes it, in a clean Debian trixie arm64 root (qemu-user): the
# repository `make repo` makes (packaging/make-repo), served over HTTP on 127.0.0.1, added with its keyring and
# deb822 sources file; `apt install playola` gets version 1; the owner edits /etc/playola.ini; `apt upgrade`
# to version 2 (the same shipped INI) and to version 3 (a changed shipped INI, with the options unattended
# upgrades pass) keeps the edit and never stops at dpkg's conffile prompt; each upgrade's postinst asks for
# the service's restart; and a repository signed by another key is refused, installing nothing.
# Versions 2, 3 and 4 are version 1's package with another Version (dpkg-deb -R, DEBIAN/control, dpkg-deb -b):
# the binary in them is the same, so `playola version` says version 1 throughout.
# There is no systemd in a chroot: the root gets /run/systemd/system (so the maintainer scripts take their
# systemd path) and a policy-rc.d that writes down each request deb-systemd-invoke makes and refuses it (101,
# as policy-rc.d does in build chroots); "the service restarts" is shown as that request, made by the upgrade.
# Usage (as root, after `make deb ARCH=arm64`): Tests/packaging/test-apt-repo.sh
# KEEP=1 keeps the work directory.
set -uo pipefail
cd "$(dirname "$0")/../.."

. Tests/packaging/checks.sh
. Tests/packaging/trixie-arm64-root.sh

[[ $(id -u) -eq 0 ]] || { echo "test-apt-repo: needs root (mmdebstrap --mode=root, chroot)" >&2; exit 1; }
[[ $# -eq 0 ]] || { echo "test-apt-repo: takes no arguments" >&2; exit 2; }
version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/PlayolaEngine/Support/Version.swift)
deb=build/playola_${version}_arm64.deb
[[ -f $deb ]] || { echo "test-apt-repo: no $deb: make deb ARCH=arm64 first" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-apt-repo.XXXXXX")
server=""
cleanup() {
    [[ -n $server ]] && kill "$server" 2>/dev/null
    # The other key's agent (make-repo leaves a REPO_GNUPGHOME's agent running, as it is a vendor's).
    [[ -d $work/other-key ]] && gpgconf --homedir "$work/other-key" --kill gpg-agent 2>/dev/null
    [[ -n "${KEEP:-}" ]] && echo "work dir: $work" || rm -rf "$work"
}
trap cleanup EXIT

clean_arm64_root

# Versions 2, 3 and 4 from version 1's package; CHANGE_INI also changes the shipped /etc/playola.ini (a line
# appended, as a release documenting a new key would), with its md5sums line.
rebuilt() { # VERSION [CHANGE_INI]
    local tree=$work/tree-$1 out=$work/playola_$1_arm64.deb
    dpkg-deb -R "$deb" "$tree"
    sed -i "s/^Version: .*/Version: $1/" "$tree/DEBIAN/control"
    if [[ -n ${2:-} ]]; then
        echo "; shipped by $1" >>"$tree/etc/playola.ini"
        sed -i "s|^[0-9a-f]*  etc/playola.ini\$|$(cd "$tree" && md5sum etc/playola.ini)|" "$tree/DEBIAN/md5sums"
    fi
    dpkg-deb -b --root-owner-group "$tree" "$out" >/dev/null && rm -rf "$tree" && echo "$out"
}
v2=$version+apt2 v3=$version+apt3 v4=$version+apt4
deb2=$(rebuilt "$v2") && deb3=$(rebuilt "$v3" change-ini) && deb4=$(rebuilt "$v4") ||
    { fail "versions 2, 3 and 4 made from $deb"; finish; }

# The HTTP server: $work/www/playola is the repository owners reach (a link, so the test can put another
# repository at the same address), $work/www/elsewhere one they never added.
mkdir -p "$work/www"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/www" >"$work/http.log" 2>&1 &
server=$!
for _ in $(seq 50); do
    port=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$work/http.log")
    [[ -n $port ]] && break
    sleep 0.1
done
[[ -n $port ]] || { fail "an HTTP server on 127.0.0.1" "$(cat "$work/http.log")"; finish; }
url=http://127.0.0.1:$port/playola/

# The repository, made as `make repo` makes it: the build machine's development key in build/apt-key.
start=$SECONDS
if REPO_URL=$url packaging/make-repo "$work/repo" "$deb" >"$work/make-repo.log" 2>&1; then
    pass "make-repo: version $version signed with the development key ($((SECONDS - start)) s)"
else
    fail "make-repo: version $version" "$(cat "$work/make-repo.log")"
    finish
fi
ln -s ../repo/public "$work/www/playola"

# The owner's steps (doc/packaging.md), in the clean root: the keyring and the sources file from the
# repository, then apt.
root=$work/root
unpack_arm64_root "$root"
mkdir -p "$root/etc/apt/keyrings" "$root/run/systemd/system"
fetch() { python3 -c 'import shutil, sys, urllib.request; shutil.copyfileobj(urllib.request.urlopen(sys.argv[1]), open(sys.argv[2], "wb"))' "$@"; }
fetch "${url}playola-archive-keyring.gpg" "$root/etc/apt/keyrings/playola-archive-keyring.gpg" &&
    fetch "${url}playola.sources" "$root/etc/apt/sources.list.d/playola.sources" ||
    { fail "the keyring and playola.sources fetched from $url"; finish; }
same "playola.sources names the served repository" \
    "$(sed -n 's/^URIs: //p' "$root/etc/apt/sources.list.d/playola.sources")" "$url"
cat >"$root/usr/sbin/policy-rc.d" <<'EOF'
#!/bin/sh
echo "$*" >>/var/log/service-requests
exit 101
EOF
chmod 0755 "$root/usr/sbin/policy-rc.d"
: >"$root/var/log/service-requests"
requests() { paste -sd';' "$root/var/log/service-requests"; }

apt_get() { # LOG APT-GET-ARGUMENTS...: no terminal, nothing on standard input
    local log=$1
    shift
    in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get -y --no-install-recommends \
        -o Dpkg::Options::=--force-unsafe-io "$@" </dev/null >"$work/$log" 2>&1
}
installed() { in_root "$root" dpkg-query -W -f='${Status} ${Version}' playola 2>&1; }

start=$SECONDS
if apt_get update1.log update && apt_get install1.log install playola; then
    pass "apt update && apt install playola: version $version from $url ($((SECONDS - start)) s)"
else
    fail "apt install playola from $url" "$(tail -n 20 "$work/update1.log" "$work/install1.log")"
    finish
fi
same "playola $version installed" "$(installed)" "install ok installed $version"
check "apt fetched it from the server on 127.0.0.1" \
    grep -q "\"GET /playola/pool/main/p/playola/playola_${version}_arm64.deb HTTP/1.1\" 200" "$work/http.log"
same "playola version (arm64, qemu-user)" "$(in_root "$root" playola version 2>&1)" "playola $version"
same "a first install asks for no start (it waits for the owner's configuration)" "$(requests)" ""

# The owner's edit, which must pass the program's own check.
ini=$root/etc/playola.ini
grep -q '^volume = 80$' "$ini" || { fail "the shipped INI has 'volume = 80' to edit"; finish; }
sed -i 's/^volume = 80$/volume = 35/' "$ini"
edited=$(sha256sum <"$ini")
if output=$(in_root "$root" playola check-config /etc/playola.ini 2>&1); then
    pass "the edited /etc/playola.ini passes playola check-config"
else
    fail "the edited /etc/playola.ini passes playola check-config" "$output"
fi

upgrade() { # NUMBER DEB VERSION [APT-GET-OPTIONS...]: the repository gets DEB; apt update && apt upgrade
    local number=$1 package=$2 want=$3 start=$SECONDS
    shift 3
    if ! REPO_URL=$url packaging/make-repo "$work/repo" "$package" >"$work/make-repo$number.log" 2>&1; then
        fail "make-repo: version $want" "$(cat "$work/make-repo$number.log")"
        return 1
    fi
    if apt_get "update$number.log" update && apt_get "upgrade$number.log" "$@" upgrade; then
        pass "apt update && apt upgrade to $want, standard input /dev/null ($((SECONDS - start)) s)"
    else
        fail "apt upgrade to $want" "$(tail -n 20 "$work/upgrade$number.log")"
        return 1
    fi
    same "playola $want installed" "$(installed)" "install ok installed $want"
    same "the owner's edit of /etc/playola.ini kept" "$(sha256sum <"$ini")" "$edited"
}
prompt="What would you like to do about it"

# Version 2 ships the INI version 1 shipped: dpkg keeps the edited file without a question.
if upgrade 2 "$deb2" "$v2"; then
    check "dpkg did not stop at a conffile question" bash -c "! grep -q '$prompt' '$work/upgrade2.log'"
    check "dpkg left no .dpkg-dist or .dpkg-old beside it" \
        bash -c "! ls '$root'/etc/playola.ini.dpkg-* >/dev/null 2>&1"
    same "the upgrade's postinst asked for the service's restart" "$(requests)" "playola.service restart"
    check "deb-systemd-invoke said policy-rc.d refused it (no systemd in a chroot)" \
        grep -q "policy-rc.d returned 101, not running 'restart playola.service'" "$work/upgrade2.log"
fi

# Version 3 ships a changed INI: without a terminal dpkg would stop at its question; with
# --force-confdef --force-confold (what unattended-upgrades passes) it keeps the owner's file and puts the
# shipped one beside it.
if upgrade 3 "$deb3" "$v3" -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold; then
    check "dpkg said it kept the modified /etc/playola.ini" \
        grep -q "Keeping old config file as default" "$work/upgrade3.log"
    same "the shipped INI of $v3 beside it as /etc/playola.ini.dpkg-dist" "$(tail -n1 "$ini.dpkg-dist" 2>&1)" \
        "; shipped by $v3"
    same "the second upgrade's postinst asked for the restart too" "$(requests)" \
        "playola.service restart;playola.service restart"
fi
after_upgrades=$(installed)

# Another key: a development key of another machine, as a vendor's own key would be (REPO_GNUPGHOME).
other_key=$work/other-key
packaging/apt-dev-key "$other_key" >/dev/null 2>&1
if REPO_GNUPGHOME=$other_key REPO_URL=$url packaging/make-repo "$work/other" "$deb4" >"$work/make-repo4.log" 2>&1; then
    pass "make-repo: version $v4 signed with another key (REPO_GNUPGHOME)"
else
    fail "make-repo: version $v4 signed with another key" "$(cat "$work/make-repo4.log")"
fi
refused='NO_PUBKEY|Missing key|not signed'
# (a) The owner's address now serves it (a hijacked server): apt keeps the lists it verified before.
ln -sfn ../other/public "$work/www/playola"
apt_get update4.log update
check "apt update refuses the repository at $url signed with another key" grep -qE "$refused" "$work/update4.log"
apt_get upgrade4.log upgrade
same "apt upgrade installs nothing from it" "$(installed)" "$after_upgrades"
policy=$(in_root "$root" apt-cache policy playola 2>&1)
check "apt does not know playola $v4" bash -c "! grep -qF -- '$v4' <<<'$policy'"
# (b) An address the owner adds with the same Signed-By: an error, and playola $v4 cannot be installed.
ln -s ../other/public "$work/www/elsewhere"
sed "s|^URIs: .*|URIs: http://127.0.0.1:$port/elsewhere/|" "$root/etc/apt/sources.list.d/playola.sources" \
    >"$root/etc/apt/sources.list.d/elsewhere.sources"
if apt_get update5.log update; then
    fail "apt update fails on a new repository signed with another key" "$(tail -n 5 "$work/update5.log")"
else
    check "apt update fails on a new repository signed with another key" grep -qE "$refused" "$work/update5.log"
fi
if apt_get install5.log install "playola=$v4"; then
    fail "apt install playola=$v4 is refused" "$(tail -n 5 "$work/install5.log")"
else
    pass "apt install playola=$v4 is refused ($(grep -m1 '^E:' "$work/install5.log"))"
fi
same "still installed: $after_upgrades" "$(installed)" "$after_upgrades"
echo "     apt said: $(grep -m1 -E "$refused" "$work/update4.log")"

finish
