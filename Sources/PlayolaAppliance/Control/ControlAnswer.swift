
/// What a control request answers, typed: the control socket writes it as one JSON line (`line`); the MPD
/// server (`Remote/`) reads the same values, so both speak to the player through one set of requests.
package enum ControlAnswer: Sendable {
    case done
    case status(StatusReport)
    case stations(StationList)

    /// The control socket's answer line.
    package var line: String {
        switch self {
        case .done: ControlReply.line(ControlReply.success)
        case .status(let report): ControlReply.line(report)
        case .stations(let list): ControlReply.line(list)
        }
    }
}
