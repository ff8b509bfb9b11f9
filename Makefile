# Build, install and package the Playola appliance.
#   make build                       release binary, Swift runtime linked in (no Swift toolchain on the board)
#   make install DESTDIR=/x          the file system layout; PREFIX=/usr by default
#   make deb                         $(BUILD_DIR)/playola_<version>_<arch>.deb, built with this machine's Swift
#   make deb ARCH=arm64              build/playola_<version>_<ARCH>.deb for Debian trixie, with trixie's Swift
#   make deb DIST=trixie [ARCH=amd64]  (packaging/build-trixie, as root; arm64 made on an amd64 host)
#   make bundle [ARCH=amd64|arm64]   $(BUILD_DIR)/playola-<version>-<arch>.raucb, the signed update of the image's root
#                                    (image/build first; ROOTFS= another root; RAUC_KEY/RAUC_CERT/RAUC_KEYRING: a vendor's key)
#   make repo                        $(REPO_DIR)/public, the signed apt repository of the built trixie .debs (amd64, arm64)
#                                    (REPO_URL= where it is served; REPO_GNUPGHOME/REPO_KEY: a vendor's key)
# SCRATCH_PATH lets a build keep away from a .build another build is using.

PREFIX       ?= /usr
SYSCONFDIR   ?= /etc
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
DATADIR      ?= $(PREFIX)/share/playola
UNITDIR      ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
MANDIR       ?= $(PREFIX)/share/man
SWIFT        ?= swift
SCRATCH_PATH ?= .build
BUILD_DIR    ?= build
# The INI to install; another path lets a package be built before etc/playola.ini exists.
INI          ?= etc/playola.ini

# SWIFT_FLAGS: more `swift build` options (packaging/build-trixie cross-compiles with them).
SWIFT_FLAGS  ?=

VERSION     := $(shell sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/PlayolaEngine/Support/Version.swift)

SWIFT_BUILD = $(SWIFT) build -c release --product playola --static-swift-stdlib --scratch-path "$(SCRATCH_PATH)" $(SWIFT_FLAGS)

.PHONY: all build install deb bundle repo clean

all: build

build:
	$(SWIFT_BUILD)

# The shell globs udev rules and demo media, not make: the demo names contain spaces, and an empty or
# missing udev/ must install nothing rather than fail (or leave an empty rules.d behind).
install: build
	bin="$$($(SWIFT_BUILD) --show-bin-path)" && \
	install -D -m 0755 "$$bin/playola" "$(DESTDIR)$(BINDIR)/playola"
	install -D -m 0644 "$(INI)" "$(DESTDIR)$(SYSCONFDIR)/playola.ini"
	install -D -m 0644 etc/systemd/playola.service "$(DESTDIR)$(UNITDIR)/playola.service"
	install -D -m 0644 etc/systemd/var-cache-playola.mount "$(DESTDIR)$(UNITDIR)/var-cache-playola.mount"
	# The mount unit's mount point, shipped: on a read-only root systemd cannot make it.
	install -d -m 0755 "$(DESTDIR)/var/cache/playola"
	install -D -m 0644 etc/systemd/playola-poweroff.path "$(DESTDIR)$(UNITDIR)/playola-poweroff.path"
	install -D -m 0644 etc/systemd/playola-poweroff.service "$(DESTDIR)$(UNITDIR)/playola-poweroff.service"
	install -D -m 0644 etc/modules-load.d/playola.conf "$(DESTDIR)$(PREFIX)/lib/modules-load.d/playola.conf"
	for rule in udev/*.rules; do \
	  [ -f "$$rule" ] || continue; \
	  install -D -m 0644 "$$rule" "$(DESTDIR)$(UDEVRULESDIR)/$${rule##*/}"; \
	done
	install -D -m 0644 etc/bash-completion/playola "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/playola"
	# The manual pages; playola.ini(5) is made from the INI installed above, so the two say the same.
	install -d -m 0755 "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5"
	sed 's/@VERSION@/$(VERSION)/' man/playola.1 | gzip -9n >"$(DESTDIR)$(MANDIR)/man1/playola.1.gz"
	awk -v version="$(VERSION)" -f man/ini-to-man.awk "$(INI)" | gzip -9n >"$(DESTDIR)$(MANDIR)/man5/playola.ini.5.gz"
	chmod 0644 "$(DESTDIR)$(MANDIR)/man1/playola.1.gz" "$(DESTDIR)$(MANDIR)/man5/playola.ini.5.gz"
	for media in demo/media/*; do \
	  [ -f "$$media" ] || continue; \
	  install -D -m 0644 "$$media" "$(DESTDIR)$(DATADIR)/demo/$${media##*/}"; \
	done

# Only ARCH= or DIST= on the command line choose it: an ARCH in the environment (kernel builds set one) does not.
ifeq ($(filter command line,$(origin ARCH) $(origin DIST)),)
deb: build
	BUILD_DIR="$(BUILD_DIR)" MAKE="$(MAKE)" packaging/build-deb.sh
else
deb:
	@[ "$(or $(DIST),trixie)" = trixie ] || { echo "make deb: only DIST=trixie is supported" >&2; exit 2; }
	packaging/build-trixie $(or $(ARCH),$(shell dpkg --print-architecture))
endif

# The bundle's root is what image/build made for ARCH: the amd64 root as it is, the Pi card's root partition.
BUNDLE_ARCH = $(if $(filter command line,$(origin ARCH)),$(ARCH),$(shell dpkg --print-architecture))
ROOTFS      ?= $(if $(filter arm64,$(BUNDLE_ARCH)),$(BUILD_DIR)/image-arm64/playola-rpi.img.xz,$(BUILD_DIR)/image-amd64/image.ext4)
bundle:
	BUILD_DIR="$(BUILD_DIR)" VERSION="$(VERSION)" image/rauc/make-bundle "$(BUNDLE_ARCH)" "$(ROOTFS)" "$(BUILD_DIR)/playola-$(VERSION)-$(BUNDLE_ARCH).raucb"

# The packages of this version that are in the build directory; the repository's suite is trixie, so the
# amd64 one must be `make deb DIST=trixie`'s (a bookworm `make deb` gives the same file name).
REPO_DIR  ?= $(BUILD_DIR)/apt
REPO_DEBS  = $(wildcard $(BUILD_DIR)/playola_$(VERSION)_amd64.deb $(BUILD_DIR)/playola_$(VERSION)_arm64.deb)
repo:
	@[ -n "$(REPO_DEBS)" ] || { echo "make repo: no $(BUILD_DIR)/playola_$(VERSION)_{amd64,arm64}.deb: make deb ARCH=arm64 (or DIST=trixie) first" >&2; exit 1; }
	BUILD_DIR="$(BUILD_DIR)" packaging/make-repo "$(REPO_DIR)" $(REPO_DEBS)

clean:
	rm -rf "$(BUILD_DIR)"
