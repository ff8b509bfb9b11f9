/// What the service hands the fleet's thread.
enum FleetInput: Sendable {
    /// The newest status line (`ChangeFeed`): published, paced.
    case status(String)
    /// The status at start, taken only while no change has come (it may be older than one that has).
    case firstStatus(String)
    /// An answer for `PREFIX/DEVICE/reply`.
    case reply(String)
    /// Say offline and close.
    case stop
}
