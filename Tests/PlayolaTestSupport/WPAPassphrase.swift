import Foundation

/// Debian's wpa_passphrase (package wpasupplicant), the reference for the key the appliance derives.
package enum WPAPassphrase {
    struct Failed: Error { var output: String }

    /// The 64-hex-digit key wpa_passphrase prints for `passphrase` (given on its standard input, as a
    /// secret should be) on the network `ssid`.
    package static func key(ssid: String, passphrase: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wpa_passphrase")
        process.arguments = [ssid]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data((passphrase + "\n").utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Its `#psk="…"` line is commented; the key is the line `psk=` followed by 64 hex digits.
        guard process.terminationStatus == 0,
              let line = said.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.hasPrefix("psk=") })
        else { throw Failed(output: said) }
        return String(line.dropFirst(4))
    }
}
