import Glibc
import CMosquitto

/// What went wrong with the broker, said the way `playola status` shows it after "cannot reach broker …:".
package enum MQTTError: Error, Equatable, CustomStringConvertible {
    /// libmosquitto.so.1 could not be loaded (the package's Depends were removed, an ABI without a symbol).
    case library(String)
    /// A libmosquitto call failed: which, and mosquitto_strerror's text (with errno's where it is one).
    case call(String, code: Int32, reason: String)
    /// The broker answered CONNECT with a refusal: mosquitto_connack_string's text.
    case refused(code: Int32, reason: String)
    /// The connection closed or stopped answering.
    case lost(String)

    package var description: String {
        switch self {
        case .library(let why): why
        case .call(let call, _, let reason): "\(call): \(reason)"
        case .refused(_, let reason): "the broker refused the connection: \(reason)"
        case .lost(let why): "connection lost: \(why)"
        }
    }

    /// The error of a libmosquitto call's return code, or nil for MOSQ_ERR_SUCCESS.
    static func of(_ call: String, _ code: Int32) -> MQTTError? {
        guard code != MOSQ_ERR_SUCCESS.rawValue else { return nil }
        var reason = String(cString: cmosquitto_strerror(code))
        // MOSQ_ERR_ERRNO's text is errno's, which is what says "connection refused" or "no route to host".
        if code == MOSQ_ERR_ERRNO.rawValue { reason = String(cString: strerror(errno)) }
        return .call(call, code: code, reason: reason)
    }
}
