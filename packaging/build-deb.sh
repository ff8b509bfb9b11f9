#!/bin/sh
# Builds $BUILD_DIR/playola_<version>_<arch>.deb from `make install` into a staging root, so the package
# and a hand install can never disagree about the layout. Called by `make deb` after the release build.
# Environment: BUILD_DIR (default build), MAKE (default make), MAINTAINER, DEB_ARCH, STRIP; make's command-line variables
# (SCRATCH_PATH, INI, ...) reach the inner make through MAKEFLAGS.
set -eu

cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
MAKE=${MAKE:-make}
MAINTAINER=${MAINTAINER:-Playola Appliance Maintainers <appliance@playola.fm>}
# dpkg-deb rejects a control directory whose mode is not 0755..0775, and the package takes every mode
# from the staging tree.
umask 022

version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/PlayolaEngine/Support/Version.swift)
[ -n "$version" ] || { echo "build-deb: no version in Sources/PlayolaEngine/Support/Version.swift" >&2; exit 1; }
# A cross build names the binary's architecture and a strip that reads it (packaging/build-trixie).
arch=${DEB_ARCH:-$(dpkg --print-architecture)}
STRIP=${STRIP:-strip}

stage=$(mktemp -d "${TMPDIR:-/tmp}/playola-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/root

# The unit runs /usr/bin/playola and the conffile is /etc/playola.ini, whatever the caller's PREFIX.
$MAKE --no-print-directory install DESTDIR="$root" PREFIX=/usr SYSCONFDIR=/etc
binary=$root/usr/bin/playola
# Symbols only: a board has no use for them, and they are most of a static-stdlib binary's size.
"$STRIP" --remove-section=.comment --remove-section=.note --strip-unneeded "$binary"

# Shared libraries → the packages that ship them. dpkg-shlibdeps also gives the minimum versions the
# binary needs, but insists on running inside a source tree, so it gets a stub one. DEPENDS_METHOD=dpkg-S
# forces the fallback (for testing it on a machine that has dpkg-dev).
depends=""
if [ "${DEPENDS_METHOD:-auto}" != dpkg-S ] && command -v dpkg-shlibdeps >/dev/null; then
    mkdir -p "$stage/src/debian"
    printf 'Source: playola\n\nPackage: playola\nArchitecture: any\n' >"$stage/src/debian/control"
    depends=$(cd "$stage/src" && dpkg-shlibdeps -O -e"$binary" 2>"$stage/shlibdeps.log") || {
        cat "$stage/shlibdeps.log" >&2
        exit 1
    }
    depends=$(printf '%s\n' "$depends" | sed -n 's/^shlibs:Depends=//p')
fi

# The package owning a library, as ldconfig found it. On a merged-/usr system a library shipped as
# /lib/x/libfoo.so.1 is found as /usr/lib/x/... or the other way round, so both spellings are asked.
owner() {
    for candidate in "$1" "$(readlink -f "$1")"; do
        for path in "$candidate" "${candidate#/usr}" "/usr$candidate"; do
            found=$(dpkg -S "$path" 2>/dev/null | head -n1) && [ -n "$found" ] && {
                echo "${found%%:*}"
                return 0
            }
        done
    done
    return 1
}

if [ -z "$depends" ]; then
    # Without dpkg-dev: the owning package of each DT_NEEDED library, without versions.
    packages=""
    for library in $(objdump -p "$binary" | awk '$1 == "NEEDED" { print $2 }'); do
        path=$(ldconfig -p | awk -v lib="$library" '$1 == lib { print $NF; exit }')
        package=$([ -n "$path" ] && owner "$path") || { echo "build-deb: no package ships $library" >&2; exit 1; }
        packages="$packages $package"
    done
    depends=$(printf '%s\n' $packages | sort -u | paste -sd, - | sed 's/,/, /g')
fi
[ -n "$depends" ] || { echo "build-deb: could not work out the package's dependencies" >&2; exit 1; }

# Libraries loaded with dlopen when first used (Sources/CCurl, CSndFile, CSoxr, CMosquitto), which neither
# dpkg-shlibdeps nor the binary's NEEDED entries name: the package that ships each soname for this architecture
# (libcurl4 in bookworm, libcurl4t64 in trixie, ...), at the least version dpkg-shlibdeps gave when they were
# linked (libcurl: curl_multi_wakeup, 7.68.0, is the newest function called; libmosquitto: mosquitto_int_option
# with MOSQ_OPT_PROTOCOL_VERSION, 1.6.0).
case $arch in
    amd64) multiarch=x86_64-linux-gnu ;;
    arm64) multiarch=aarch64-linux-gnu ;;
    *) multiarch=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH) ;;
esac
loaded=""
for library in libcurl.so.4:7.68.0 libsndfile.so.1:1.0.20 libsoxr.so.0:0.1.0 libmosquitto.so.1:1.6.0; do
    path=/usr/lib/$multiarch/${library%%:*}
    package=$(owner "$path") || { echo "build-deb: no package ships $path (its -dev package for $arch is missing)" >&2; exit 1; }
    loaded="$loaded$package (>= ${library#*:})
"
done
depends=$( (printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//'; printf '%s' "$loaded") | sort -u | paste -sd, - | sed 's/,/, /g')
# postinst creates the system user with adduser; the Playola API and most streams are HTTPS, which libcurl
# verifies against ca-certificates (libcurl only Recommends it, and an image installs no Recommends).
# The maintainer scripts enable and restart the unit through deb-systemd-helper and deb-systemd-invoke
# (Essential in bookworm, so versioned as debhelper versions it).
depends="adduser, ca-certificates, init-system-helpers (>= 1.54~), $depends"

# Debian policy 12.5 and 12.7: the copyright file (machine-readable) and the changelog (changelog.gz: the
# version has no Debian revision, so this is a native package, and lintian wants that name), whose newest entry
# must be this version.
changelog_version=$(sed -n '1s/^playola (\([^)]*\)).*/\1/p' packaging/debian/changelog)
[ "$changelog_version" = "$version" ] || {
    echo "build-deb: packaging/debian/changelog's newest entry is '$changelog_version', not $version: add an entry" >&2
    exit 1
}
install -D -m 0644 packaging/debian/copyright "$root/usr/share/doc/playola/copyright"
gzip -9n <packaging/debian/changelog >"$root/usr/share/doc/playola/changelog.gz"

mkdir -p "$root/DEBIAN"
installed_size=$(du -sk --apparent-size "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$MAINTAINER|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s|@DEPENDS@|$depends|" \
    packaging/debian/control.in >"$root/DEBIAN/control"
# Every file under /etc is the operator's: an upgrade asks before replacing an edited one.
(cd "$root" && find etc -type f | sed 's|^|/|' | sort) >"$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"
done
# As dh_md5sums writes it: what `dpkg --verify` checks the installed files against.
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort | xargs -d '\n' md5sum) \
    >"$root/DEBIAN/md5sums"

mkdir -p "$BUILD_DIR"
deb=$BUILD_DIR/playola_${version}_${arch}.deb
dpkg-deb --build --root-owner-group "$root" "$deb" >/dev/null
echo "$deb"
