import Glibc
import PlayolaEngine
import PlayolaConfig

/// What went wrong on the lines while the GPIO thread runs. The GPIO layer says it through
/// `GPIOActions.fault` and does not log: the service turns faults into (rate-limited) log lines.
package enum GPIOFault: Sendable, Equatable, CustomStringConvertible {
    case poll(errno: Int32)
    /// The chip's descriptors stopped reporting (an unplugged USB GPIO board).
    case stoppedReporting(chip: String)
    case readingEdges(errno: Int32)
    case setting(LineRef, errno: Int32)
    /// A line written to the fake source's pipe that is not `NAME 0` or `NAME 1`.
    case fakeLine(path: String, text: String)

    /// A problem of the input rather than of the machine.
    package var isWarning: Bool { if case .fakeLine = self { true } else { false } }

    /// Groups the repeats of one fault for the log's rate limit; nil for one said once each time.
    package var key: String? {
        switch self {
        case .poll: "gpio-poll"
        case .readingEdges: "gpio-read"
        case .setting: "gpio-set"
        case .stoppedReporting, .fakeLine: nil
        }
    }

    package var description: String {
        switch self {
        case .poll(let code): "gpio: poll: \(Errno(code))"
        case .stoppedReporting(let chip): "gpio: lines of \(chip) stopped reporting"
        case .readingEdges(let code): "gpio: reading edges: \(Errno(code))"
        case .setting(let line, let code): "gpio: setting \(line): \(Errno(code))"
        case .fakeLine(let path, let text): "gpio: \(path): expected 'NAME 0' or 'NAME 1', not '\(text)'"
        }
    }
}
