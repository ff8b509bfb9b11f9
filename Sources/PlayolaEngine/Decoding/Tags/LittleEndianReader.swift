/// Reads little-endian fields off the front of outside bytes (Ogg codec headers), refusing any that would
/// run past the end: each returns nil there and the caller names the header as malformed.
struct LittleEndianReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    mutating func uint8() -> UInt8? { self.bytes(1)?.first }
    mutating func uint16() -> UInt16? { unsigned(2).map { UInt16($0) } }
    mutating func uint32() -> UInt32? { unsigned(4).map { UInt32($0) } }

    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer.SubSequence? {
        guard count >= 0, offset <= bytes.count, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func skip(_ count: Int) -> Bool { self.bytes(count) != nil }

    private mutating func unsigned(_ width: Int) -> UInt64? {
        self.bytes(width)?.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
