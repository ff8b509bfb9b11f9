import Foundation

/// Runs a tool from PATH (ffmpeg, sox) and waits for it.
package func runTool(_ tool: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    try process.run()
    process.waitUntilExit()
}
