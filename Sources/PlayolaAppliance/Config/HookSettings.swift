import Glibc
import PlayolaApplianceSupport
import PlayolaEngine

/// The `[hooks]` section: a program run at each change (`HookRunner`), as pianobar's `event_command` is.
package struct HookSettings: Sendable, Equatable {
    package static let keys = ["on_change", "timeout"]
    package static let defaultTimeout = 10.0
    /// A hook that needs longer is not a hook but a service of its own.
    package static let maximumTimeout = 600.0

    /// An absolute path; nil: no hook.
    package var onChange: String?
    /// Seconds a run may take before it is killed.
    package var timeout = defaultTimeout
}

extension ConfigValidator {
    mutating func readHooks(_ entries: [INIEntry]) {
        for entry in entries {
            switch entry.key {
            case "on_change":
                guard let path = absolutePath(entry) else { continue }
                config.hooks.onChange = path
                // Not an error: the program may be installed after the configuration, and it is looked for at each run.
                if access(path, X_OK) != 0 {
                    warning("on_change \(path): \(Errno.current); it is not run until it is an executable file", entry.line)
                }
            case "timeout":
                let limit = HookSettings.maximumTimeout
                if let seconds = accepted(parseDuration(entry.value).flatMap { $0 <= limit ? $0 : nil }, entry,
                                          must: "be a duration like 10s or 1m, at most \(DurationText.describe(limit))") {
                    config.hooks.timeout = seconds
                }
            default:
                unknownKey(entry, known: HookSettings.keys)
            }
        }
    }
}
