// swift-tools-version:6.0
import PackageDescription

/// One system-library module per C library; each is wrapped once, in PlayolaEngine or PlayolaAppliance.
func systemLibrary(_ name: String, pkgConfig: String?, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
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
        systemLibrary("CSoxr", pkgConfig: "soxr", apt: "libsoxr-dev"),
        systemLibrary("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        systemLibrary("CINIH", pkgConfig: "inih", apt: "libinih-dev"),
        .target(name: "CGPIO", linkerSettings: [.linkedLibrary("gpiod")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "CALSAQuiet", linkerSettings: [.linkedLibrary("asound")]),
        .target(
            name: "PlayolaEngine",
            dependencies: ["CALSA", "CALSAQuiet", "CMPG123", "CFAAD", "CSoxr", "CSndFile", "CCurl"]
        ),
        .executableTarget(
            name: "PlayolaAppliance",
            dependencies: ["PlayolaEngine", "CGPIO", "CINIH"]
        ),
        // The parsers of outside bytes as fuzz targets; Fuzz/run drives them with libFuzzer.
        .target(name: "PlayolaFuzzTargets", dependencies: ["PlayolaEngine"], path: "Fuzz/Targets"),
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        .executableTarget(name: "playola-fuzz", dependencies: ["PlayolaFuzzTargets", "CFuzzerDriver"], path: "Fuzz/Driver"),
        .testTarget(name: "PlayolaEngineTests", dependencies: ["PlayolaEngine", "PlayolaFuzzTargets"]),
        .testTarget(name: "PlayolaApplianceTests", dependencies: ["PlayolaAppliance", "PlayolaEngine"]),
    ],
    swiftLanguageModes: [.v6]
)
