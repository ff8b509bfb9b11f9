#!/usr/bin/env bash
# script/check-layers on copies of the package: passes on the package as it is, and fails, naming the file and
# line, on each kind of arrow against ARCHITECTURE.md put into a copy.
set -uo pipefail
cd "$(dirname "$0")/../.."
source Tests/packaging/checks.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# copy NAME: a fresh copy of what check-layers reads, in $work/NAME.
copy() {
    mkdir -p "$work/$1"
    cp -r Package.swift ARCHITECTURE.md Sources Tests Fuzz "$work/$1/"
}
# refused NAME WANT: check-layers fails on the copy NAME and says WANT.
refused() {
    local out
    if out=$(script/check-layers "$work/$1" 2>&1); then
        fail "$1: check-layers passed"
    else
        [[ $out == *"$2"* ]] && pass "$1" || fail "$1" "got '$out', want '$2'"
    fi
}

copy same
check "the package as it is keeps to its layers" script/check-layers "$work/same"

# The mixer reaching up to the live engine (the build fails too: "circular dependency between modules").
copy upward
sed -i '1i import PlayolaLive' "$work/upward/Sources/PlayolaEngine/Mixer/Mixer.swift"
refused upward "Sources/PlayolaEngine/Mixer/Mixer.swift:1: PlayolaMixer may not import PlayolaLive"

# The schedule sources reaching the cache sideways: this one builds (measured: SwiftPM lets a module import
# what its dependencies depend on, and the network brings the cache), so only the check stops it.
copy sideways
sed -i '1a @testable import PlayolaCache' "$work/sideways/Sources/PlayolaEngine/Schedule/ScheduleSource.swift"
refused sideways "Sources/PlayolaEngine/Schedule/ScheduleSource.swift:2: PlayolaSchedule may not import PlayolaCache"

# The appliance past the engine's one module.
copy appliance
file=$(grep -l '^import PlayolaEngine' Sources/PlayolaAppliance/Service/*.swift | head -1)
sed -i 's/^import PlayolaEngine$/import PlayolaEngine\nimport PlayolaMixer/' "$work/appliance/$file"
line=$(grep -n '^import PlayolaMixer$' "$work/appliance/$file" | cut -d: -f1)
refused appliance "$file:$line: PlayolaAppliance may not import PlayolaMixer"

# The appliance's GPIO layer reaching up to the controller.
copy appliance-upward
sed -i '1i import PlayolaControl' "$work/appliance-upward/Sources/PlayolaAppliance/GPIO/GPIOService.swift"
refused appliance-upward "Sources/PlayolaAppliance/GPIO/GPIOService.swift:1: PlayolaGPIO may not import PlayolaControl"

# The executable taking the whole of Sources/PlayolaAppliance again.
copy whole-appliance
sed -i 's|path: "Sources/PlayolaAppliance/Service",|path: "Sources/PlayolaAppliance",|' "$work/whole-appliance/Package.swift"
refused whole-appliance "PlayolaAppliance is all of Sources/PlayolaAppliance: each layer is one folder of it"

copy foundation
sed -i '1i import Foundation' "$work/foundation/Sources/PlayolaEngine/Model/Spin.swift"
refused foundation "Sources/PlayolaEngine/Model/Spin.swift:1: import FoundationEssentials, not Foundation"

# Package.swift given an arrow the drawing does not have.
copy manifest
sed -i 's/engineLayer("PlayolaMixer", "Mixer", \["PlayolaModel", "PlayolaDecoding"\])/engineLayer("PlayolaMixer", "Mixer", ["PlayolaModel", "PlayolaDecoding", "PlayolaOutput"])/' \
    "$work/manifest/Package.swift"
refused manifest "PlayolaMixer may import PlayolaDecoding, PlayolaModel, Package.swift declares PlayolaDecoding, PlayolaModel, PlayolaOutput"

# A folder in no layer.
copy stray
mkdir "$work/stray/Sources/PlayolaEngine/Stray"
echo 'let stray = 1' >"$work/stray/Sources/PlayolaEngine/Stray/Stray.swift"
refused stray "Sources/PlayolaEngine/Stray/Stray.swift: belongs to no target"

# A layer carved out of its folder by an exclude list again (what every layer was before each had its own).
copy carved
sed -i 's|path: "Sources/PlayolaEngine/\\(folder)")|path: "Sources/PlayolaEngine/\\(folder)", exclude: folder == "Live" ? ["Render"] : [])|' \
    "$work/carved/Package.swift"
refused carved "layer PlayolaLive picks its files (exclude, sources): it is its whole folder"

finish
