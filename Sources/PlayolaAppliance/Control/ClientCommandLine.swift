import PlayolaConfig
import PlayolaApplianceSupport

/// A client's command line (`playola status --json --socket PATH`), checked whole before the service is
/// contacted: an option or a word the command does not take is a usage error (exit 2), never a request.
package struct ClientCommandLine {
    /// The commands that talk to the service (`audio-device` is the udev rule's).
    package static let commands: Set<String> = ["status", "play", "next", "previous", "stop", "pause", "resume", "volume", "bass", "treble", "audio-device"]

    package let request: ControlRequest
    package let socketPath: String
    package let json: Bool
    /// `status --watch`.
    package let watch: Bool

    /// `words`: the command and what follows it.
    package init(_ words: [String]) throws(UsageError) {
        let name = words.first ?? ""
        let valued: Set = ["socket", "config", "last-good"]
        let flags: Set = ["json"]
        let arguments = try Arguments(
            Array(words.dropFirst()), valued: name == "play" ? valued.union(["ago"]) : valued,
            flags: name == "status" ? flags.union(["watch"]) : flags, positionalLimit: .max)
        do throws(ControlError) {
            request = try ControlRequest(words: [name] + arguments.positional + (arguments.options["ago"].map { ["--ago", $0] } ?? []))
        } catch {
            throw UsageError(error.description, namesCommand: true)
        }
        json = arguments.flags.contains("json")
        watch = arguments.flags.contains("watch")
        socketPath = arguments.options["socket"] ?? Self.configuredSocket(arguments)
    }

    /// The socket of the configuration the service runs on.
    private static func configuredSocket(_ arguments: Arguments) -> String {
        let keeper = ConfigKeeper(explicitPath: arguments.options["config"], lastGoodPath: arguments.options["last-good"])
        return keeper.configForClients()?.service.socket ?? ApplianceConfig.Service().socket
    }
}
