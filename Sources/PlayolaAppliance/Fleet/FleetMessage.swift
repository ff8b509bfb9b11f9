/// A message the broker forwarded: its topic, its payload (at most one byte past `FleetCommand.longestPayload`
/// is kept: enough to refuse it), and the length it had.
package struct FleetMessage: Sendable, Equatable {
    package var topic: String
    package var payload: [UInt8]
    package var length: Int

    package init(topic: String, payload: [UInt8], length: Int? = nil) {
        (self.topic, self.payload, self.length) = (topic, payload, length ?? payload.count)
    }
}
