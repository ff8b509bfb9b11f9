import Glibc
import PlayolaEngine
import PlayolaConfig

/// Lines played from a named pipe, for end-to-end tests of the running service on machines without GPIO
/// (`[gpio] chip = fake:/path/to/fifo`). Each line written to the pipe is `NAME LEVEL`, like `GPIO17 0`: that
/// line's physical level from now on. Outputs are appended to `PATH.out` in the same form.
final class FIFOLineSource: GPIOLineSource {
    static let prefix = "fake:"

    let path: String
    private let fd: Int32
    private var text: [UInt8] = []
    private var levels: [LineRef: Bool] = [:]
    private let fault: @Sendable (GPIOFault) -> Void

    /// The path of `chip` when it names a fake source.
    static func path(ofChip chip: String?) -> String? {
        guard let chip, chip.hasPrefix(prefix) else { return nil }
        return String(chip.dropFirst(prefix.count))
    }

    /// Creates the pipe when it is missing.
    init(path: String, fault: @escaping @Sendable (GPIOFault) -> Void = { _ in }) throws(GPIOError) {
        self.fault = fault
        if mkfifo(path, 0o600) != 0 && errno != EEXIST { throw .fakeSource(path: path, errno: errno) }
        // Read-write: with a writer of our own the pipe never reports end-of-file between test writers.
        fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .fakeSource(path: path, errno: errno) }
        self.path = path
    }

    deinit { close(fd) }

    func nextEvent(timeout: Double) -> LineEvent? {
        while true {
            if let event = parseLine() { return event }
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(max(timeout, 0) * 1000, 3_600_000).rounded(.up)))
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            text += chunk[0..<count]
        }
    }

    /// The next whole line that names a line and a level; others are reported and skipped.
    private func parseLine() -> LineEvent? {
        while let newline = text.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: text[..<newline], as: UTF8.self)
            text.removeSubrange(...newline)
            let words = line.split(whereSeparator: \.isWhitespace)
            guard !words.isEmpty else { continue }
            guard words.count == 2, let ref = LineRef(parsing: String(words[0])), words[1] == "0" || words[1] == "1" else {
                fault(.fakeLine(path: path, text: line))
                continue
            }
            levels[ref] = words[1] == "1"
            return LineEvent(line: ref, level: words[1] == "1", time: now())
        }
        return nil
    }

    func setOutput(_ line: LineRef, _ on: Bool) {
        guard let out = try? FileDescriptor.open(path + ".out", O_WRONLY | O_CREAT | O_APPEND, permissions: 0o600) else { return }
        defer { out.close() }
        let name = switch line {
        case .name(let name): name
        case .offset(let offset): "\(offset)"
        }
        _ = Array("\(name) \(on ? 1 : 0)\n".utf8).withUnsafeBytes { try? out.writeAll($0) }
    }

    func level(of line: LineRef) -> Bool? { levels[line] }
}
