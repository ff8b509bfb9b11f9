import Foundation
import XCTest

/// Runs the `playola` executable built beside the tests; returns its standard output.
package func runPlayola(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
    let process = Process()
    process.executableURL = Bundle.main.bundleURL.appendingPathComponent("playola")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "playola \(arguments.joined(separator: " "))")
    return String(decoding: data, as: UTF8.self)
}
