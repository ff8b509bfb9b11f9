# The clean Debian trixie arm64 root that the arm64 package's tests install into, and running commands in it
# under qemu-user. Sourced by test-arm64.sh and test-apt-repo.sh from the repository's top, after checks.sh,
# with $work set to the test's work directory:
#   clean_arm64_root        makes build/trixie/arm64-clean.tar, or finds it cached (a failure ends the test)
#   unpack_arm64_root DIR   a fresh copy of it in DIR, with the host's resolv.conf
#   in_root ROOT COMMAND... COMMAND in the chroot ROOT, the work directory at /mnt/test

# The mirror is the host's, as in packaging/build-trixie.
sources=/etc/apt/sources.list.d/debian.sources
[[ -f $sources ]] || sources=/etc/apt/sources.list
host_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
apt_sources=$(sed "s/\b$host_release\b/trixie/g" "$sources")

# Commands in a chroot: /proc for the Swift runtime and apt, the host's /dev, the work directory at /mnt/test.
in_root() { # ROOT COMMAND...
    local target=$1
    shift
    unshare --mount --propagation private -- sh -euc '
        mount -t proc proc "$1/proc"
        mount --rbind /dev "$1/dev"
        mkdir -p "$1/mnt/test" && mount --bind "$2" "$1/mnt/test"
        target=$1; shift 2
        # Without TMPDIR: a TMPDIR from outside (script/scoped, say) names a folder not in this root.
        exec env -u TMPDIR chroot "$target" "$@"
    ' in_root "$target" "$work" "$@"
}

# The clean root: mmdebstrap's apt variant, nothing else. Making it runs every essential package's scripts
# under qemu-user, so it is kept as a tarball (build/trixie/arm64-clean.tar, made again when the host's
# sources change) and unpacked afresh for every run; the package and its Depends are installed each time.
clean_arm64_tar=build/trixie/arm64-clean.tar
clean_arm64_root() {
    local base=$clean_arm64_tar start=$SECONDS
    # Every dpkg run is emulated: no fsync per file (the root is thrown away), and no debconf
    # pre-configuration (apt-extracttemplates and perl over every package, to ask questions nobody
    # answers), as image/build does.
    local fast=(--dpkgopt=force-unsafe-io --aptopt='#clear DPkg::Pre-Install-Pkgs;'
        --hook-dir=/usr/share/mmdebstrap/hooks/eatmydata)
    local key
    key=$(sha256sum <<<"$apt_sources ${fast[*]}" | cut -d' ' -f1)
    if [[ "$(cat "$base.key" 2>/dev/null)" == "$key" ]]; then
        echo "     the clean trixie arm64 root is cached ($base)"
        return
    fi
    mkdir -p build/trixie && rm -f "$base" "$base.key"
    if mmdebstrap --mode=root --variant=apt --architectures=arm64 "${fast[@]}" trixie "$base" - <<<"$apt_sources" \
        >"$work/mmdebstrap.log" 2>&1; then
        echo "$key" >"$base.key"
        pass "a clean trixie arm64 root made ($((SECONDS - start)) s, kept in $base)"
    else
        fail "a clean trixie arm64 root made" "$(tail -n 20 "$work/mmdebstrap.log")"
        finish
    fi
}

unpack_arm64_root() { # DIR
    mkdir -p "$1"
    tar -x -C "$1" -f "$clean_arm64_tar"
    cp /etc/resolv.conf "$1/etc/resolv.conf"
}
