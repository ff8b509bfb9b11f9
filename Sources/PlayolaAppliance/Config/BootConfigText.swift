import PlayolaApplianceSupport

/// The Raspberry Pi's `config.txt`, as the config check reads it: the sound card's overlay decides which
/// pins the buttons must leave alone.
package struct BootConfigText: Sendable, Equatable {
    package var path: String
    package var text: String

    package init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    /// Where the Pi firmware reads it: on the image, the FAT partition that also holds playola.ini.
    static let bootPartition = "/boot/firmware/config.txt"
    /// Larger than any real config.txt (a few KiB); a bigger file is not read.
    static let maximumSize = 256 * 1024

    /// The `config.txt` beside the INI at `iniPath`, else the boot partition's; nil when neither is readable.
    static func near(_ iniPath: String) -> BootConfigText? {
        let folder = iniPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let beside = folder.isEmpty ? (iniPath.hasPrefix("/") ? "" : ".") : folder
        for path in [beside + "/config.txt", bootPartition] {
            if case .success(let data) = WholeFile.read(path, limit: maximumSize) {
                return BootConfigText(path: path, text: String(decoding: data, as: UTF8.self))
            }
        }
        return nil
    }
}
