
/// Finds a spin's audio file in a folder by its download URL's last path component, percent-decoded
/// (`…/01%20Sittin%20On%20a%20Porch.m4a` → `DIR/01 Sittin On a Porch.m4a`).
public struct MediaDirectory: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public func file(for url: String) -> String {
        let withoutQuery = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let component = withoutQuery.split(separator: "/").last.map(String.init) ?? withoutQuery
        return path + "/" + Self.percentDecoded(component)
    }

    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
