import Foundation
import FoundationNetworking

/// One of the tests' helper servers (`Tests/Support/*.py`) as a child process: started with its
/// `--exit-on-stdin-eof`, so it ends with this object or with the whole test process, and ready once it has
/// printed its first line (which names its port).
package final class SupportServer {
    package let readyLine: String
    private let process: Process
    private let lifeline = Pipe()

    package init(_ script: String, _ arguments: [String]) throws {
        // This file is Tests/PlayolaTestSupport/SupportServer.swift; the scripts are in Tests/Support.
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/" + script).path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", path] + arguments + ["--exit-on-stdin-eof"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = lifeline
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            guard let chunk = output.fileHandleForReading.readAvailable() else { break }
            line.append(chunk)
        }
        readyLine = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !readyLine.isEmpty else {
            process.terminate()
            throw NSError(domain: script, code: 1, userInfo: [NSLocalizedDescriptionKey: "\(script) did not start"])
        }
    }

    /// The port of a JSON ready line (`{"port": N, …}`).
    var jsonPort: Int? {
        (try? JSONSerialization.jsonObject(with: Data(readyLine.utf8)) as? [String: Any])?["port"] as? Int
    }

    /// Ends the server; `wait` until it is gone (its port free again). No waiting in a deinit: off the main
    /// thread `waitUntilExit` waits on a run loop that never turns there.
    package func stop(wait: Bool) {
        process.terminate()
        try? lifeline.fileHandleForWriting.close()
        if wait { process.waitUntilExit() }
    }

    deinit { stop(wait: false) }
}

/// A control request to a helper server (`/_faults`, `/_requests`, …): its JSON answer, if any.
func controlRequest(_ base: String, _ method: String, _ path: String, _ body: Any? = nil) throws -> Any? {
    var request = URLRequest(url: URL(string: base + path)!)
    request.httpMethod = method
    if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Data?
    URLSession.shared.dataTask(with: request) { data, _, _ in
        result = data
        semaphore.signal()
    }.resume()
    semaphore.wait()
    return result.flatMap { try? JSONSerialization.jsonObject(with: $0) }
}
