import FoundationEssentials
import Glibc
import PlayolaEngine

/// The control socket: a Unix stream socket, one command per line, one JSON answer per command.
/// Group-restricted (mode 0660): members of the service's group may control it.
enum ControlServer {
    static let commands = "status, play [STATION] [--ago DURATION], next, previous, stop, pause, resume, volume N"

    /// Binds `path` and serves on a thread of its own. Throws a message when the socket cannot be made.
    static func start(path: String, controller: ApplianceController) throws(ControlError) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .usage("control socket: \(String(cString: strerror(errno)))") }
        let parent = path.split(separator: "/").dropLast().joined(separator: "/")
        if !parent.isEmpty { mkdir("/" + parent, 0o750) }
        unlink(path)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .usage("control socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .usage("control socket \(path): \(reason)")
        }
        chmod(path, 0o660)
        startThread(named: "playola-control") {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { if errno == EINTR { continue }; usleep(100_000); continue }
                serve(client, controller: controller)
                close(client)
            }
        }
    }

    private static func serve(_ client: Int32, controller: ApplianceController) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1024)
        while buffer.count < 4096 {
            let got = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard got > 0 else { break }
            buffer += chunk[0..<got]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                let answer = blocking { await handle(line, controller: controller) }
                send(answer + "\n", to: client)
            }
        }
    }

    private static func send(_ text: String, to client: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let sent = Glibc.send(client, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return }
                done += sent
            }
        }
    }

    /// One command → its JSON answer.
    static func handle(_ line: String, controller: ApplianceController) async -> String {
        let words = line.split(separator: " ").map(String.init)
        do throws(ControlError) {
            switch words.first {
            case "status":
                let report = await controller.status()
                return encode(report)
            case "play":
                var name: String?
                var ago: Double?
                var index = 1
                while index < words.count {
                    if words[index] == "--ago", index + 1 < words.count {
                        guard let seconds = parseDuration(words[index + 1]) else { throw .usage("--ago: a duration like 1h, 15m or 90s") }
                        ago = seconds
                        index += 2
                    } else {
                        name = words[index]
                        index += 1
                    }
                }
                try await controller.play(name, ago: ago)
            case "next": await controller.next()
            case "previous": await controller.previous()
            case "stop": await controller.stop()
            case "pause": await controller.pause()
            case "resume": await controller.resume()
            case "audio-device":
                // From the udev rule: a sound card was added or removed; look for the device now.
                await controller.audioDeviceChanged()
            case "volume":
                guard words.count == 2, let percent = Int(words[1]), (0...100).contains(percent) else {
                    throw .usage("volume takes a percentage from 0 to 100")
                }
                await controller.setVolume(percent)
            default:
                throw .usage("unknown command '\(words.first ?? "")'; commands: \(commands)")
            }
            return #"{"ok":true}"#
        } catch {
            return encode(["ok": "false", "error": error.description]).replacing(#""ok":"false""#, with: #""ok":false"#)
        }
    }

    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"ok":false}"#
    }
}

/// `90s`, `15m`, `1h`, `2h30m` → seconds.
func parseDuration(_ text: String) -> Double? {
    var total = 0.0
    var number = ""
    for character in text {
        if character.isNumber || character == "." {
            number.append(character)
        } else {
            guard let value = Double(number) else { return nil }
            switch character {
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            case "d": total += value * 86_400
            default: return nil
            }
            number = ""
        }
    }
    if !number.isEmpty { guard let value = Double(number) else { return nil }; total += value }
    return total > 0 ? total : nil
}
