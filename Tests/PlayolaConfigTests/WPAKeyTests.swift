@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
import XCTest
import PlayolaTestSupport

/// The Wi-Fi key the appliance derives from a passphrase (WPAKey.swift) against the published test vectors
/// of each layer, and against wpa_passphrase.
final class WPAKeyTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { WPAKey.hex(bytes) }

    func testSHA1MatchesFIPS180Vectors() {
        XCTAssertEqual(hex(SHA1.hash([])), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(hex(SHA1.hash(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        // 56 bytes: the length no longer fits the first block, so the padding takes a second.
        XCTAssertEqual(hex(SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        var million = SHA1()
        for _ in 0..<1000 { million.update([UInt8](repeating: UInt8(ascii: "a"), count: 1000)) }
        XCTAssertEqual(hex(million.finish()), "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    func testHMACMatchesRFC2202Vectors() {
        XCTAssertEqual(hex(HMACSHA1(key: [UInt8](repeating: 0x0B, count: 20)).authenticate(Array("Hi There".utf8))),
                       "b617318655057264e28bc0b6fb378c8ef146be00")
        XCTAssertEqual(hex(HMACSHA1(key: Array("Jefe".utf8)).authenticate(Array("what do ya want for nothing?".utf8))),
                       "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        // A key longer than a block is hashed first.
        XCTAssertEqual(hex(HMACSHA1(key: [UInt8](repeating: 0xAA, count: 80))
                            .authenticate(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
                       "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    func testPBKDF2MatchesRFC6070Vectors() {
        let password = Array("password".utf8), salt = Array("salt".utf8)
        XCTAssertEqual(hex(WPAKey.pbkdf2(password: password, salt: salt, iterations: 1, length: 20)),
                       "0c60c80f961f0e71f3a9b524af6012062fe037a6")
        XCTAssertEqual(hex(WPAKey.pbkdf2(password: password, salt: salt, iterations: 4096, length: 20)),
                       "4b007901b765489abead49d926f721d065a429c1")
        // Two blocks, the second cut.
        XCTAssertEqual(hex(WPAKey.pbkdf2(password: Array("passwordPASSWORDpassword".utf8),
                                         salt: Array("saltSALTsaltSALTsaltSALTsaltSALTsalt".utf8), iterations: 4096, length: 25)),
                       "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038")
    }

    func testWPAKeyMatchesIEEE80211iVectorsAndWPAPassphrase() throws {
        XCTAssertEqual(hex(WPAKey.derive(passphrase: "password", ssid: "IEEE")),
                       "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e")
        XCTAssertEqual(hex(WPAKey.derive(passphrase: "ThisIsAPassword", ssid: "ThisIsASSID")),
                       "0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af")
        let cases = [("Porch Wi-Fi", "correct horse battery staple"), ("Caf\u{E9} \u{2615}", #"p@ss"w0rd;'\0123 ={}"#),
                     (String(repeating: "Z", count: 32), String(repeating: "~", count: 63)), ("x", "12345678")]
        for (ssid, passphrase) in cases {
            XCTAssertEqual(hex(WPAKey.derive(passphrase: passphrase, ssid: ssid)), try WPAPassphrase.key(ssid: ssid, passphrase: passphrase), ssid)
        }
    }
}
