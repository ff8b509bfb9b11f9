import Foundation

/// One run of the `playola` binary built beside the tests.
struct PlayolaRun {
    /// False when a signal (a trap) ended it.
    var exited: Bool
    var status: Int32
    var out: String
    var error: String
    var seconds: Double

    /// `tool` another program than `playola` (mpc, ss, python3), run the same way.
    init(_ arguments: [String], environment: [String: String]? = nil, tool: String? = nil) throws {
        let process = Process()
        process.executableURL = tool.map { URL(fileURLWithPath: $0) } ?? Bundle.main.bundleURL.appendingPathComponent("playola")
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let error = Pipe()
        process.standardOutput = out
        process.standardError = error
        let began = Date()
        try process.run()
        let said = out.fileHandleForReading.readDataToEndOfFile()
        let complained = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        seconds = Date().timeIntervalSince(began)
        exited = process.terminationReason == .exit
        status = process.terminationStatus
        self.out = String(decoding: said, as: UTF8.self)
        self.error = String(decoding: complained, as: UTF8.self)
    }
}
