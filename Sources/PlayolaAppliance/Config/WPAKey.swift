/// WPA's 256-bit pre-shared key from a passphrase, as wpa_passphrase derives it (IEEE 802.11i, H.4):
/// PBKDF2-HMAC-SHA1(passphrase, SSID, 4096 iterations, 32 bytes). Written here, small, so the root helper
/// needs no other program (a passphrase on its command line or in a pipe) and no other C library.
enum WPAKey {
    static func derive(passphrase: String, ssid: String) -> [UInt8] {
        pbkdf2(password: Array(passphrase.utf8), salt: Array(ssid.utf8), iterations: 4096, length: 32)
    }

    /// PBKDF2 (RFC 8018) over HMAC-SHA1.
    static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        let mac = HMACSHA1(key: password)
        var key: [UInt8] = []
        var block: UInt32 = 1
        while key.count < length {
            var u = mac.authenticate(salt + [UInt8(block >> 24), UInt8(truncatingIfNeeded: block >> 16),
                                             UInt8(truncatingIfNeeded: block >> 8), UInt8(truncatingIfNeeded: block)])
            var t = u
            for _ in 1..<max(iterations, 1) {
                u = mac.authenticate(u)
                for index in t.indices { t[index] ^= u[index] }
            }
            key += t
            block += 1
        }
        return Array(key.prefix(length))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

/// HMAC (RFC 2104) over SHA-1, the key's pads hashed once for all messages.
struct HMACSHA1 {
    private var inner = SHA1(), outer = SHA1()

    init(key: [UInt8]) {
        var padded = key.count > SHA1.blockSize ? SHA1.hash(key) : key
        padded += [UInt8](repeating: 0, count: SHA1.blockSize - padded.count)
        inner.update(padded.map { $0 ^ 0x36 })
        outer.update(padded.map { $0 ^ 0x5C })
    }

    func authenticate(_ message: [UInt8]) -> [UInt8] {
        var inner = inner, outer = outer
        inner.update(message)
        outer.update(inner.finish())
        return outer.finish()
    }
}

/// SHA-1 (FIPS 180-4): broken for signatures, still what WPA2's key derivation is defined with.
struct SHA1 {
    static let blockSize = 64
    private var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    static func hash(_ message: [UInt8]) -> [UInt8] {
        var sha = SHA1()
        sha.update(message)
        return sha.finish()
    }

    mutating func update(_ bytes: [UInt8]) {
        length &+= UInt64(bytes.count)
        pending += bytes
        var start = 0
        while pending.count - start >= Self.blockSize {
            compress(pending[start..<(start + Self.blockSize)])
            start += Self.blockSize
        }
        pending.removeFirst(start)
    }

    /// The 20-byte digest; the hash is spent.
    mutating func finish() -> [UInt8] {
        let bits = length &* 8
        var padding: [UInt8] = [0x80]
        padding += [UInt8](repeating: 0, count: (Self.blockSize * 2 - 9 - pending.count) % Self.blockSize)
        padding += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * $0)) }
        let counted = length
        update(padding)
        length = counted
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }

    private mutating func compress(_ block: ArraySlice<UInt8>) {
        var w = [UInt32](repeating: 0, count: 80)
        for index in 0..<16 {
            let base = block.startIndex + index * 4
            w[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16 | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
        }
        for index in 16..<80 { w[index] = rotate(w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16], 1) }
        var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
        for index in 0..<80 {
            let (f, k): (UInt32, UInt32) = switch index {
            case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
            case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
            case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
            default: (b ^ c ^ d, 0xCA62_C1D6)
            }
            (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ k &+ w[index], a, rotate(b, 30), c, d)
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
    }

    private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value << count | value >> (32 - count) }
}
