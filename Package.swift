// swift-tools-version:6.0
import PackageDescription

/// One system-library module per C library; each is wrapped once, in PlayolaEngine or PlayolaAppliance.
func systemLibrary(_ name: String, pkgConfig: String?, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// A layer of the engine: a module that is one folder of Sources/PlayolaEngine.
func engineLayer(_ name: String, _ folder: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, path: "Sources/PlayolaEngine/\(folder)")
}

/// A layer of the appliance: a module that is one folder of Sources/PlayolaAppliance.
func applianceLayer(_ name: String, _ folder: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, path: "Sources/PlayolaAppliance/\(folder)")
}

/// The tests of one layer: Tests/<layer>Tests, with the engine's public API and the shared test helpers.
func layerTests(_ layer: String, also: [Target.Dependency] = []) -> Target {
    let engine: [Target.Dependency] = layer == "PlayolaEngine" ? [] : ["PlayolaEngine"]
    return .testTarget(name: "\(layer)Tests", dependencies: [.target(name: layer), "PlayolaTestSupport"] + engine + also)
}

let package = Package(
    name: "PlayolaAppliance",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PlayolaEngine", targets: ["PlayolaEngine"]),
        .executable(name: "playola", targets: ["PlayolaAppliance"]),
    ],
    targets: [
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("CMPG123", pkgConfig: "libmpg123", apt: "libmpg123-dev"),
        systemLibrary("CFAAD", pkgConfig: "faad2", apt: "libfaad-dev"),
        // libsoxr and libsndfile are loaded when first used (dlopen; Sources/CSoxr, Sources/CSndFile), so not linked.
        .target(name: "CLazyLibrary"), // dlopen and dlsym for the three libraries loaded when first used
        .target(name: "CSoxr", dependencies: ["CLazyLibrary"]),
        .target(name: "CSndFile", dependencies: ["CLazyLibrary"]),
        // Ogg Vorbis and Opus streams: linked (libsndfile, loaded when first used, uses the same three).
        systemLibrary("COgg", pkgConfig: "ogg", apt: "libogg-dev"),
        systemLibrary("CVorbis", pkgConfig: "vorbis", apt: "libvorbis-dev"),
        systemLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        systemLibrary("CINIH", pkgConfig: "inih", apt: "libinih-dev"),
        .systemLibrary(name: "CMalloc"), // glibc's <malloc.h>: the appliance's allocation policy (main.swift)
        .target(name: "CGPIO", linkerSettings: [.linkedLibrary("gpiod")]),
        // libcurl is loaded when the first transfer starts (dlopen; Sources/CCurl/include/ccurl.h), so not linked.
        .target(name: "CCurl", dependencies: ["CLazyLibrary"]),
        .target(name: "CALSAQuiet", linkerSettings: [.linkedLibrary("asound")]),
        // libmosquitto is loaded when [fleet] is first set (dlopen; Sources/CMosquitto/include/cmosquitto.h), so not linked.
        .target(name: "CMosquitto", dependencies: ["CLazyLibrary"]),
        // The engine's layers, one module each, each its own folder under Sources/PlayolaEngine; each may import only
        // the layers below it (ARCHITECTURE.md draws them; script/check-layers holds every import to this list).
        engineLayer("PlayolaSupport", "Support", []),
        engineLayer("PlayolaModel", "Model", ["PlayolaSupport"]),
        engineLayer("PlayolaDecoding", "Decoding", ["PlayolaSupport", "CMPG123", "CFAAD", "CSoxr", "CSndFile", "COgg", "CVorbis", "COpus"]),
        engineLayer("PlayolaOutput", "Output", ["PlayolaSupport", "CALSA", "CALSAQuiet"]),
        engineLayer("PlayolaMixer", "Mixer", ["PlayolaModel", "PlayolaDecoding"]),
        engineLayer("PlayolaCache", "Cache", ["PlayolaSupport", "PlayolaDecoding"]),
        engineLayer("PlayolaNetwork", "Network", ["PlayolaSupport", "PlayolaModel", "PlayolaDecoding", "PlayolaCache", "CCurl"]),
        engineLayer("PlayolaStreaming", "Streaming", ["PlayolaSupport", "PlayolaDecoding", "PlayolaNetwork"]),
        engineLayer("PlayolaSchedule", "Schedule", ["PlayolaSupport", "PlayolaModel", "PlayolaDecoding", "PlayolaNetwork"]),
        engineLayer("PlayolaLive", "Live", ["PlayolaSupport", "PlayolaModel", "PlayolaDecoding", "PlayolaMixer", "PlayolaOutput"]),
        // The top layer (the station player) is the module the appliance imports; it re-exports the layers below.
        engineLayer("PlayolaEngine", "Player", [
            "PlayolaSupport", "PlayolaModel", "PlayolaDecoding", "PlayolaOutput", "PlayolaMixer", "PlayolaCache",
            "PlayolaNetwork", "PlayolaStreaming", "PlayolaSchedule", "PlayolaLive",
        ]),
        // The appliance's layers, each one folder of Sources/PlayolaAppliance, each importing only those below it.
        applianceLayer("PlayolaApplianceSupport", "Support", ["PlayolaEngine"]),
        applianceLayer("PlayolaConfig", "Config", ["PlayolaApplianceSupport", "PlayolaEngine", "CINIH"]),
        applianceLayer("PlayolaGPIO", "GPIO", ["PlayolaApplianceSupport", "PlayolaConfig", "PlayolaEngine", "CGPIO"]),
        applianceLayer("PlayolaControl", "Control", ["PlayolaApplianceSupport", "PlayolaConfig", "PlayolaGPIO", "PlayolaEngine"]),
        applianceLayer("PlayolaRemote", "Remote", ["PlayolaApplianceSupport", "PlayolaConfig", "PlayolaControl", "PlayolaEngine"]),
        applianceLayer("PlayolaFleet", "Fleet", ["PlayolaApplianceSupport", "PlayolaConfig", "PlayolaControl", "PlayolaEngine", "CMosquitto"]),
        .executableTarget(
            name: "PlayolaAppliance",
            dependencies: [
                "PlayolaApplianceSupport", "PlayolaConfig", "PlayolaGPIO", "PlayolaControl", "PlayolaRemote", "PlayolaFleet",
                "PlayolaEngine", "CMalloc",
            ],
            path: "Sources/PlayolaAppliance/Service",
            // Relative relocations packed (RELR, glibc >= 2.36): 38,700 RELA entries were 906 KiB of the
            // binary that the loader reads, and that stayed resident, at every start; packed they are 8 KiB.
            // The functions that run while playing placed together, first (bench/symbol-order.sh makes the
            // list; a change to it needs a relink): 1.2 MiB less of the code resident (bench/PROFILE.md,
            // "Memory"). Gold can do neither; lld, the toolchain's own, does both.
            linkerSettings: [.unsafeFlags([
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/bench/symbol-order.txt",
                "-Xlinker", "--no-warn-symbol-ordering",
            ], .when(platforms: [.linux]))]
        ),
        // The parsers of outside bytes as fuzz targets; Fuzz/run drives them with libFuzzer.
        .target(name: "PlayolaFuzzTargets", dependencies: ["PlayolaEngine", "COgg"], path: "Fuzz/Targets"),
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        .executableTarget(name: "playola-fuzz", dependencies: ["PlayolaFuzzTargets", "CFuzzerDriver"], path: "Fuzz/Driver"),
        // The tests: one target per layer, each in its folder Tests/<layer>Tests, and the end-to-end tests
        // (the playola executable run as a process against real servers), over the helpers they share.
        .target(name: "PlayolaTestSupport", dependencies: ["PlayolaEngine"], path: "Tests/PlayolaTestSupport"),
        layerTests("PlayolaSupport"),
        layerTests("PlayolaModel"),
        layerTests("PlayolaDecoding", also: ["PlayolaFuzzTargets"]),
        layerTests("PlayolaOutput"),
        layerTests("PlayolaMixer"),
        layerTests("PlayolaCache"),
        layerTests("PlayolaNetwork"),
        layerTests("PlayolaStreaming"),
        layerTests("PlayolaSchedule"),
        layerTests("PlayolaLive"),
        layerTests("PlayolaEngine"),
        layerTests("PlayolaApplianceSupport"),
        layerTests("PlayolaConfig", also: ["PlayolaApplianceSupport"]),
        layerTests("PlayolaGPIO", also: ["PlayolaApplianceSupport", "PlayolaConfig", "CGPIO"]),
        layerTests("PlayolaControl", also: ["PlayolaApplianceSupport", "PlayolaConfig"]),
        layerTests("PlayolaRemote", also: ["PlayolaApplianceSupport", "PlayolaConfig", "PlayolaControl"]),
        layerTests("PlayolaFleet", also: ["PlayolaApplianceSupport", "PlayolaConfig", "PlayolaControl"]),
        layerTests("PlayolaAppliance", also: ["PlayolaApplianceSupport", "PlayolaConfig", "PlayolaControl"]),
        .testTarget(name: "PlayolaEndToEndTests", dependencies: [
            "PlayolaAppliance", "PlayolaApplianceSupport", "PlayolaConfig", "PlayolaGPIO", "PlayolaControl", "PlayolaRemote",
            "PlayolaEngine", "PlayolaTestSupport",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
