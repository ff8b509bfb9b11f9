import Foundation
@testable import PlayolaConfig

/// A folder of INI files for one config test, removed with it; each file loaded as the service loads it, its
/// diagnostics with the file's path written as FILE.
final class ConfigScratch {
    let directory: String

    init(_ label: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @discardableResult
    func write(_ text: String, name: String = "playola.ini", mode: Int = 0o600) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func load(_ text: String, mode: Int = 0o600) throws -> (config: ApplianceConfig?, lines: [String]) {
        let path = try write(text, mode: mode)
        let (config, diagnostics) = ApplianceConfig.load(path: path)
        return (config, diagnostics.map { $0.description.replacingOccurrences(of: path, with: "FILE") })
    }
}
