#!/usr/bin/env bash
# The signed update bundle, checked with the host's real RAUC: `make bundle` of a small ext4 root (made
# here, not a full image; for arm64, a small compressed card holding it) verifies against the build's
# keyring and the image's system.conf; one made with one's own key verifies against its own CA only; a bundle
# signed by another CA, a truncated one, and ones with a byte changed in the signature or the payload are
# refused, each with RAUC's own message. Then `rauc install` through a RAUC service of its own (a private
# D-Bus, a throwaway system.conf with file-backed slots and a custom boot-selection handler): every
# refused bundle leaves the slot's bytes and the boot selection as they were (Tests/update/rauc-service.sh).
# Usage (as root: the RAUC service): Tests/update/test-bundle.sh     KEEP=1 keeps the work directory.
# Needs script/setup --update (rauc, squashfs-tools, dbus-daemon, openssl, e2fsprogs, fdisk, xz-utils).
set -uo pipefail
cd "$(dirname "$0")/../.."

. Tests/packaging/checks.sh
. Tests/update/rauc-service.sh

[[ $(id -u) -eq 0 ]] || { echo "test-bundle: needs root (the RAUC service writes its slots as root)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/playola-test-bundle.XXXXXX")
cleanup() {
    stop_rauc_service
    [[ -n "${KEEP:-}" ]] && echo "work dir: $work" || rm -rf "$work"
}
trap cleanup EXIT
version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/PlayolaEngine/Support/Version.swift)

# contains DESCRIPTION FILE TEXT: FILE holds TEXT (RAUC's message, or what it printed).
contains() {
    if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1" "no '$3' in: $(tr '\n' ' ' <"$2" | cut -c1-400)"; fi
}
# refused DESCRIPTION MESSAGE COMMAND...: COMMAND fails and says MESSAGE.
refused() {
    local description=$1 message=$2
    shift 2
    if "$@" >"$work/out" 2>&1; then fail "$description" "accepted: $(tr '\n' ' ' <"$work/out" | cut -c1-300)"; return; fi
    contains "$description" "$work/out" "$message"
}
quiet() { "$@" >/dev/null 2>&1; }
# flip FILE OFFSET: FILE with the byte at OFFSET inverted.
flip() {
    local byte
    byte=$(od -An -tu1 -j "$2" -N1 "$1")
    printf "\\$(printf '%03o' $((255 - byte)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# The root: a small ext4 with 256 KiB that do not compress, so the payload is more than squashfs headers.
mkdir -p "$work/tree/boot"
head -c 262144 /dev/urandom >"$work/tree/boot/vmlinuz"
mke2fs -q -t ext4 -L playola -d "$work/tree" "$work/root.ext4" 8M >/dev/null
image/rauc/dev-keys "$work/other" 2>/dev/null

# The build's own key: made by `make bundle` itself, in its BUILD_DIR.
out=$work/out-dir
if make --no-print-directory bundle ARCH=amd64 ROOTFS="$work/root.ext4" BUILD_DIR="$out" >"$work/make.log" 2>&1; then
    pass "make bundle ARCH=amd64"
else
    fail "make bundle ARCH=amd64" "$(tail -5 "$work/make.log")"
    finish
fi
bundle=$out/playola-$version-amd64.raucb
keyring=$out/rauc/ca.cert.pem
check "the bundle is $bundle" test -f "$bundle"
check "the development signing key stays in the build directory, unreadable to others" \
    test "$(stat -c %a "$out/rauc/signing.key.pem")" = 600
check "the development CA's own key is not kept once it issued the signing certificate" test ! -e "$out/rauc/ca.key.pem"

rauc info --keyring="$keyring" "$bundle" >"$work/info" 2>&1
same "rauc info --keyring: the build's bundle verifies" "$?" 0
contains "its signer is the development signing certificate" "$work/info" "Verified inline signature by 'O = Playola development, CN = Playola development signing"
contains "its compatible string is the amd64 image's" "$work/info" "Compatible: 	'playola-amd64'"
contains "its version is the package's" "$work/info" "Version:    	'$version'"
contains "its format is verity" "$work/info" "Bundle Format: 	verity"

# The Pi's bundle: its root is the card's second partition (the card image xz-compressed, as image/build leaves it).
truncate -s 12M "$work/card.img"
printf 'label: dos\nstart=1MiB, size=2MiB, type=c\nstart=3MiB, size=8MiB, type=83\n' | sfdisk -q "$work/card.img"
dd if="$work/root.ext4" of="$work/card.img" bs=1M seek=3 conv=notrunc status=none
xz -T0 "$work/card.img"
make --no-print-directory bundle ARCH=arm64 ROOTFS="$work/card.img.xz" BUILD_DIR="$out" >"$work/make-arm64.log" 2>&1
same "make bundle ARCH=arm64 of a compressed card" "$?" 0
rpi_bundle=$out/playola-$version-arm64.raucb
rauc info --keyring="$keyring" "$rpi_bundle" >"$work/rpi-info" 2>&1
contains "its compatible string is the Pi image's" "$work/rpi-info" "Compatible: 	'playola-rpi'"
quiet rauc extract --keyring="$keyring" "$rpi_bundle" "$work/extracted-rpi"
check "it holds the card's root partition, byte for byte" cmp -s "$work/extracted-rpi/root.ext4" "$work/root.ext4"

# The image's system.conf, as the image will carry it: RAUC rejects any key it does not know.
sed 's/@COMPATIBLE@/playola-amd64/' image/rauc/system.conf.in >"$work/system.conf"
# perform-pre-check came with RAUC 1.10 (the image's is trixie's); an older host RAUC (bookworm's 1.8) is
# given the file without it, and says so.
host_rauc=$(rauc --version | sed -n 's/^rauc \([0-9]*\.[0-9]*\).*/\1/p')
if [[ $(printf '%s\n' "$host_rauc" 1.10 | sort -V | head -n1) != 1.10 ]]; then
    echo "note: this host's RAUC $host_rauc predates perform-pre-check (1.10): system.conf is loaded without it"
    sed -i '/^perform-pre-check=/d' "$work/system.conf"
fi
rauc --conf="$work/system.conf" --keyring="$keyring" info "$bundle" >"$work/conf-info" 2>&1
same "image/rauc/system.conf loads, and the bundle verifies with it" "$?" 0
contains "RAUC keeps its state on the persistent partition" "$work/conf-info" "/var/lib/persistent/rauc/central.raucs"

# Another CA (a vendor's own, or another build machine's) signs a bundle of the same root: not ours.
other_out=$work/other-out
make --no-print-directory bundle ARCH=amd64 ROOTFS="$work/root.ext4" BUILD_DIR="$other_out" RAUC_KEY="$work/other/signing.key.pem" \
    RAUC_CERT="$work/other/signing.cert.pem" RAUC_KEYRING="$work/other/ca.cert.pem" >"$work/make-other.log" 2>&1
same "make bundle RAUC_KEY=... RAUC_CERT=... RAUC_KEYRING=...: a bundle signed with one's own key" "$?" 0
check "and no development key is made for it" test ! -e "$other_out/rauc"
cp "$other_out/playola-$version-amd64.raucb" "$work/other.raucb"
check "it verifies against its own CA" quiet rauc info --keyring="$work/other/ca.cert.pem" "$work/other.raucb"
refused "a bundle signed by another CA is refused" "signature verification failed: Verify error: unable to get local issuer certificate" \
    rauc info --keyring="$keyring" "$work/other.raucb"

# The amd64 bundle's layout: payload (squashfs), its verity hash tree, the CMS signature, the signature's size
# in the last 8 bytes (big-endian).
size=$(stat -c %s "$bundle")
signature_size=$(tail -c 8 "$bundle" | od -An -tu8 --endian=big | tr -d ' ')
head -c $((size - 100)) "$bundle" >"$work/short.raucb"
refused "a bundle missing its last 100 bytes is refused" "Invalid bundle format: Signature size" \
    rauc info --keyring="$keyring" "$work/short.raucb"
head -c $((size / 2)) "$bundle" >"$work/half.raucb"
refused "half a bundle is refused" "Invalid bundle format" rauc info --keyring="$keyring" "$work/half.raucb"
# The signature value ends the CMS structure (after the certificates): a byte there fails the RSA check.
cp "$bundle" "$work/signature.raucb"
flip "$work/signature.raucb" $((size - 8 - 20))
refused "a byte changed in the signature is refused" "signature verification failed" \
    rauc info --keyring="$keyring" "$work/signature.raucb"
# The payload: the signature covers the manifest and the verity root hash, so `rauc info` (the signature
# alone) still passes; every read of the payload is checked against the hash tree, and fails.
cp "$bundle" "$work/payload.raucb"
flip "$work/payload.raucb" 1000
rauc info --keyring="$keyring" "$work/payload.raucb" >/dev/null 2>&1
same "a byte changed in the payload: the signature alone still verifies" "$?" 0
refused "a byte changed in the payload is refused when the payload is read (rauc extract)" "bundle payload is corrupted" \
    rauc extract --keyring="$keyring" "$work/payload.raucb" "$work/extracted"
check "and nothing is extracted" test ! -e "$work/extracted"
rauc extract --keyring="$keyring" "$bundle" "$work/extracted-good" >/dev/null 2>&1
check "the build's bundle extracts to the root it was made from, byte for byte" cmp -s "$work/extracted-good/root.ext4" "$work/root.ext4"
# verify-bundle, which the image runs before RAUC is handed a file: the whole payload against the hash tree.
verify=image/files/usr/lib/playola/verify-bundle
said=$("$verify" "$bundle" "$keyring" 2>&1)
same "verify-bundle: the build's bundle passes whole, and its version is said" "$?:$said" "0:$version"
refused "verify-bundle: a byte changed at the payload's start is refused" "its payload is damaged" "$verify" "$work/payload.raucb" "$keyring"
cp "$bundle" "$work/mid.raucb"
flip "$work/mid.raucb" $((4096 * 5 + 100))
refused "verify-bundle: a byte changed inside a 64 KiB chunk, past its first page (RAUC 1.13's pre-check passes over it), is refused" \
    "its payload is damaged" "$verify" "$work/mid.raucb" "$keyring"
refused "verify-bundle: a bundle signed by another CA is refused" "signature verification failed" "$verify" "$work/other.raucb" "$keyring"
refused "verify-bundle: a truncated bundle is refused" "Invalid bundle format" "$verify" "$work/short.raucb" "$keyring"
cp "$bundle" "$work/tree.raucb"
flip "$work/tree.raucb" $((size - 8 - signature_size - 100))
refused "a byte changed in the verity hash tree is refused" "bundle payload is corrupted" \
    rauc extract --keyring="$keyring" "$work/tree.raucb" "$work/extracted-tree"

# rauc install: the RAUC service on a D-Bus of its own, slot B a file of known bytes, the boot selection a
# handler that logs every call. Booted from A, an install writes B and makes it primary.
cat >"$work/boot-selection" <<HANDLER
#!/bin/sh
# RAUC's custom bootloader backend: get-primary, set-primary SLOT, get-state SLOT, set-state SLOT STATE, get-current.
echo "\$*" >>"$work/boot-selection.log"
case \$1 in
    get-primary | get-current) echo A ;;
    get-state) echo good ;;
esac
HANDLER
chmod +x "$work/boot-selection"
: >"$work/boot-selection.log"
head -c 16M /dev/urandom >"$work/slot-b"
truncate -s 16M "$work/slot-a"
cat >"$work/install.conf" <<CONF
[system]
compatible=playola-amd64
bootloader=custom
bundle-formats=-plain
data-directory=$work/rauc-data
[handlers]
bootloader-custom-backend=$work/boot-selection
[keyring]
path=$keyring
$(file_slots "$work")
CONF
mkdir -p "$work/rauc-data"
start_rauc_service "$work" "$work/install.conf" A
rauc status >"$work/status" 2>&1
contains "the test's RAUC service runs, booted from A" "$work/status" "Booted from: rootfs.0 (A)"

slot_b=$(sha256sum <"$work/slot-b")
# install NAME BUNDLE MESSAGE: refused with MESSAGE, slot B and the boot selection untouched.
install_refused() {
    : >"$work/boot-selection.log"
    refused "rauc install: $1 is refused" "$3" timeout 120 rauc install "$2"
    same "rauc install: $1: slot B's bytes are unchanged" "$(sha256sum <"$work/slot-b")" "$slot_b"
    if grep -q '^set-' "$work/boot-selection.log"; then
        fail "rauc install: $1: the boot selection is unchanged" "$(grep '^set-' "$work/boot-selection.log" | tr '\n' ' ')"
    else
        pass "rauc install: $1: the boot selection is unchanged"
    fi
}
install_refused "a bundle signed by another CA" "$work/other.raucb" "unable to get local issuer certificate"
install_refused "a truncated bundle" "$work/short.raucb" "Invalid bundle format"
install_refused "a byte changed in the signature" "$work/signature.raucb" "signature verification failed"

# The payload is read through dm-verity: the kernel's device mapper. Where there is one, the build's
# bundle is written to B and B made primary, and the changed payload is refused with B as it was.
if [[ -e /dev/mapper/control ]] || modprobe dm_mod 2>/dev/null && [[ -e /dev/mapper/control ]]; then
    install_refused "a byte changed in the payload" "$work/payload.raucb" "failed"
    # RAUC 1.8 checks the compatible string once the bundle is mounted.
    install_refused "the Pi's bundle, signed by our key, on an amd64 system" "$rpi_bundle" \
        "Compatible mismatch: Expected 'playola-amd64' but bundle manifest has 'playola-rpi'"
    : >"$work/boot-selection.log"
    timeout 300 rauc install "$bundle" >"$work/install.log" 2>&1
    same "rauc install: the build's bundle installs" "$?" 0
    check "rauc install: slot B holds the bundle's root, byte for byte" cmp -s -n "$(stat -c %s "$work/root.ext4")" "$work/slot-b" "$work/root.ext4"
    contains "rauc install: B is made primary" "$work/boot-selection.log" "set-primary B"
else
    echo "note: no device mapper on this host (/dev/mapper/control): the install of the good bundle, and the refusals of a changed payload (dm-verity) and of another compatible string, are not run"
    timeout 120 rauc install "$bundle" >"$work/install.log" 2>&1
    contains "rauc install: the build's bundle passes the signature and manifest checks, and stops only at the device mapper" \
        "$work/install.log" "Checking manifest contents done."
fi
finish
