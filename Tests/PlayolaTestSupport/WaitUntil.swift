import Foundation
import XCTest

extension XCTestCase {
    /// Polls `condition` every 100 ms for at most `seconds`; whether it came true. A wait on what the code does,
    /// not on a clock: a loaded machine takes longer, and the test with it, rather than failing.
    package func waitUntil(_ seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }
}
