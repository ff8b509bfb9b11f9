#!/usr/bin/env bash
# `apt install ./playola_*.deb` then `apt purge playola` in a clean root of the host's Debian release
# (mmdebstrap, apt variant): lists what the install added and what the purge left behind, and fails if
# anything of ours is left (the gpio group stays on purpose: other software on the board may use it).
# Usage (as root, after `make deb`): Tests/packaging/test-install-purge.sh [DEB]    KEEP=1 keeps the work dir.
set -uo pipefail
cd "$(dirname "$0")/../.."

. Tests/packaging/checks.sh
quiet() { "$@" >/dev/null 2>&1; }

[[ $(id -u) -eq 0 ]] || { echo "test-install-purge: needs root (mmdebstrap --mode=root, chroot)" >&2; exit 1; }
version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/PlayolaEngine/Support/Version.swift)
deb=${1:-build/playola_${version}_$(dpkg --print-architecture).deb}
[[ -f $deb ]] || { echo "test-install-purge: no $deb: make deb first" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/playola-install-purge.XXXXXX")
[[ -n "${KEEP:-}" ]] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT
root=$work/root
release=$(. /etc/os-release && echo "$VERSION_CODENAME")

# in_root COMMAND...: COMMAND in the root; with BOUND=DIR, DIR bound onto its /var/lib/playola as on the image.
in_root() {
    unshare --mount --propagation private -- sh -euc '
        mount -t proc proc "$1/proc"
        mount --rbind /dev "$1/dev"
        if [ -n "$2" ]; then mkdir -p "$1/var/lib/playola" && mount --bind "$2" "$1/var/lib/playola"; fi
        target=$1; shift 2
        # Without TMPDIR: a TMPDIR from outside (script/scoped, say) names a folder not in this root.
        exec env -u TMPDIR chroot "$target" "$@"
    ' in_root "$root" "${BOUND:-}" "$@"
}
# Every path in the root but the package manager's own records, caches and logs, and the backups the shadow
# tools keep of the user database (/etc/shadow- and the like: adduser and deluser write them, not we).
snapshot() {
    (cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./run -o -path ./tmp -o -path ./var/lib/dpkg \
        -o -path ./var/lib/apt -o -path ./var/cache/apt -o -path ./var/cache/debconf -o -path ./var/cache/ldconfig \
        -o -path ./var/log/apt -o -path ./var/log/dpkg.log -o -path ./var/log/alternatives.log -o -path ./root/deb \
        -o -path './etc/*-' \) -prune -o -print | sort)
}

start=$SECONDS
if mmdebstrap --variant=apt --mode=root --quiet --skip=cleanup/apt/lists "$release" "$root" >"$work/mmdebstrap.log" 2>&1; then
    pass "a clean $release root (mmdebstrap, $((SECONDS - start)) s)"
else
    fail "mmdebstrap" "$(tail -n 5 "$work/mmdebstrap.log")"
    finish
fi
mkdir -p "$root/root/deb" && cp "$deb" "$root/root/deb/"
name=$(basename "$deb")

# The dependencies first, so that what the package itself adds and leaves can be told apart.
depends=$(dpkg-deb --field "$deb" Depends | sed 's/([^)]*)//g; s/,/ /g')
# shellcheck disable=SC2086
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $depends >"$work/apt.log" 2>&1 ||
    { fail "the dependencies install" "$(tail -n 5 "$work/apt.log")"; finish; }
snapshot >"$work/before"

if in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "/root/deb/$name" >"$work/install.log" 2>&1; then
    pass "apt install ./$name"
else
    fail "apt install ./$name" "$(tail -n 5 "$work/install.log")"
    finish
fi
snapshot >"$work/installed"
echo "     the install added $(comm -13 "$work/before" "$work/installed" | wc -l) paths, among them:"
comm -13 "$work/before" "$work/installed" | grep -vE '^\./usr/share/playola/demo/.' | sed 's/^/       /' | head -n 40
check "the system user exists" quiet in_root getent passwd playola
check "playola.service is enabled (a symlink in multi-user.target.wants)" \
    test -L "$root/etc/systemd/system/multi-user.target.wants/playola.service"
check "the packaged binary runs there" quiet in_root playola version
check "man finds playola(1) there" test -f "$root/usr/share/man/man1/playola.1.gz"

if in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq playola >"$work/purge.log" 2>&1; then
    pass "apt purge playola"
else
    fail "apt purge playola" "$(tail -n 5 "$work/purge.log")"
fi
snapshot >"$work/after"
left=$(comm -13 "$work/before" "$work/after")
echo "     left behind after the purge: $(grep -c . <<<"$left") paths${left:+:}"
[[ -n $left ]] && sed 's/^/       /' <<<"$left"
check "the purge leaves no path of ours" test -z "$left"
check "the purge removes the system user and its group" \
    bash -c '! grep -q "^playola:" "$1/etc/passwd" && ! grep -q "^playola:" "$1/etc/group"' _ "$root"
check "the gpio group stays (other software may rely on it)" grep -q '^gpio:' "$root/etc/group"
check "dpkg knows nothing of playola" bash -c '! chroot "$1" dpkg -s playola >/dev/null 2>&1' _ "$root"

# As on the image: /var/lib/playola is a bind mount of the persistent partition's playola/ (image/read-only-root),
# which the purge must empty and cannot remove.
persistent=$work/persistent/playola
mkdir -p "$persistent" && echo '{"station":"porch"}' >"$persistent/state.json" && echo id >"$persistent/device-id"
if BOUND=$persistent in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "/root/deb/$name" >"$work/install2.log" 2>&1 &&
    BOUND=$persistent in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq playola >"$work/purge2.log" 2>&1; then
    pass "apt purge playola with /var/lib/playola a bind mount, as on the image"
else
    fail "apt purge playola with /var/lib/playola a bind mount" "$(tail -n 5 "$work/install2.log" "$work/purge2.log" 2>/dev/null)"
fi
check "the purge empties the bound state directory" test -z "$(ls -A "$persistent")"
finish
