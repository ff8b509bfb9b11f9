/// The answer to `stations`: the configured stations in file order, and the one playing or last played.
package struct StationList: Codable, Sendable, Equatable {
    package struct Station: Codable, Sendable, Equatable {
        package var name: String
        /// The INI's `type`: `playola`, `local` or `stream`.
        package var type: String
    }

    package var ok = true
    package var stations: [Station]
    package var current: String?
}
