@testable import PlayolaConfig
import Foundation
import XCTest

/// Issue 32, item 1: `[fleet]` read and checked as the other sections are: off without the section, each
/// mistake named with its file, line and why, the password never in a message.
final class FleetConfigTests: XCTestCase {
    private var scratch: ConfigScratch!
    private var directory: String { scratch.directory }
    private let demo = "[station demo]\ntype = local\npath = /tmp\n"

    override func setUpWithError() throws { scratch = try ConfigScratch("fleet-config") }
    override func tearDown() { scratch = nil }

    func testNoSectionNoFleet() throws {
        let config = try XCTUnwrap(try scratch.load(demo).config)
        XCTAssertNil(config.fleet)
    }

    func testValuesAreRead() throws {
        for name in ["ca.crt", "box.crt", "box.key"] { try scratch.write("x", name: name) }
        let (config, lines) = try scratch.load("""
            [fleet]
            broker = mqtts://broker.example.net
            ca_file = \(directory)/ca.crt
            cert_file = \(directory)/box.crt
            key_file = \(directory)/box.key
            user = box-1
            password = sesame-open
            topic_prefix = radios
            group = lobby, floor-2
            keepalive = 45
            ha_discovery = yes

            """ + demo)
        XCTAssertEqual(lines, [])
        let fleet = try XCTUnwrap(config?.fleet)
        XCTAssertEqual(fleet.broker, MQTTBroker(secure: true, host: "broker.example.net", port: 8883))
        XCTAssertEqual(fleet.caFile, directory + "/ca.crt")
        XCTAssertEqual(fleet.certFile, directory + "/box.crt")
        XCTAssertEqual(fleet.keyFile, directory + "/box.key")
        XCTAssertEqual(fleet.user, "box-1")
        XCTAssertEqual(fleet.password, "sesame-open")
        XCTAssertEqual(fleet.topicPrefix, "radios")
        XCTAssertEqual(fleet.groups, ["lobby", "floor-2"])
        XCTAssertEqual(fleet.keepalive, 45)
        XCTAssertTrue(fleet.haDiscovery)
        XCTAssertFalse("\(fleet)".contains("sesame"), "the description never says the password")
    }

    func testDefaults() throws {
        let fleet = try XCTUnwrap(try scratch.load("[fleet]\nbroker = mqtt://127.0.0.1\n" + demo).config?.fleet)
        XCTAssertEqual(fleet.broker, MQTTBroker(secure: false, host: "127.0.0.1", port: 1883))
        XCTAssertEqual(fleet.topicPrefix, "playola")
        XCTAssertEqual(fleet.groups, [])
        XCTAssertEqual(fleet.keepalive, 30)
        XCTAssertFalse(fleet.haDiscovery)
        XCTAssertNil(fleet.caFile, "mqtts:// without ca_file checks the broker against \(FleetSettings.systemCADirectory)")
    }

    func testEachMistakeGivesItsExactDiagnostic() throws {
        let broker = "broker = mqtts://b.example:8883\n"
        let cases: [(String, [String])] = [
            ("[fleet]\n", ["FILE:1: error: [fleet] needs a broker, like broker = mqtts://broker.example.net:8883 (or no [fleet] section: no fleet)"]),
            ("[fleet]\nbroker = https://b.example\n",
             ["FILE:1: error: [fleet] needs a broker, like broker = mqtts://broker.example.net:8883 (or no [fleet] section: no fleet)",
              "FILE:2: error: broker 'https://b.example' must start with mqtts:// (or mqtt://), like mqtts://broker.example.net:8883"]),
            ("[fleet]\nbroker = mqtts://b.example:0\n",
             ["FILE:1: error: [fleet] needs a broker, like broker = mqtts://broker.example.net:8883 (or no [fleet] section: no fleet)",
              "FILE:2: error: broker 'mqtts://b.example:0' has port '0'; a port is a number from 1 to 65535, like mqtts://broker.example.net:8883"]),
            ("[fleet]\nbroker = mqtts://b.example:65536\n" + broker,
             ["FILE:1: error: [fleet] needs a broker, like broker = mqtts://broker.example.net:8883 (or no [fleet] section: no fleet)",
              "FILE:2: error: broker 'mqtts://b.example:65536' has port '65536'; a port is a number from 1 to 65535, like mqtts://broker.example.net:8883",
              "FILE:3: error: duplicate key 'broker' in [fleet] (first at line 2)"]),
            ("[fleet]\nbroker = mqtts://user:pw@b.example\n",
             ["FILE:1: error: [fleet] needs a broker, like broker = mqtts://broker.example.net:8883 (or no [fleet] section: no fleet)",
              "FILE:2: error: broker 'mqtts://user:pw@b.example' holds '@': give user and password as keys of their own, like mqtts://broker.example.net:8883"]),
            ("[fleet]\nbroker = mqtts://b.example/topic\n",
             ["FILE:1: error: [fleet] needs a broker, like broker = mqtts://broker.example.net:8883 (or no [fleet] section: no fleet)",
              "FILE:2: error: broker 'mqtts://b.example/topic' names a path: a broker is only a host and a port, like mqtts://broker.example.net:8883"]),
            ("[fleet]\nbroker = mqtt://b.example\n",
             ["FILE:2: warning: broker mqtt://b.example:1883 is plain MQTT: status, commands cross the network unencrypted; use mqtts://"]),
            ("[fleet]\nbroker = mqtt://localhost:1884\n", []),
            ("[fleet]\n" + broker + "topic_prefix = a/b\n",
             ["FILE:3: error: topic_prefix 'a/b' holds '/', which MQTT topics reserve; it is one topic level, like playola"]),
            ("[fleet]\n" + broker + "topic_prefix = #\n",
             ["FILE:3: error: topic_prefix '#' holds '#', which MQTT topics reserve; it is one topic level, like playola"]),
            ("[fleet]\n" + broker + "topic_prefix = $SYS\n",
             ["FILE:3: error: topic_prefix '$SYS' starts with '$', which names the broker's own topics; it is one topic level, like playola"]),
            ("[fleet]\n" + broker + "group = lobby, +\n",
             ["FILE:3: error: group '+' holds '+', which MQTT topics reserve; groups are comma-separated names, like lobby, floor-2"]),
            ("[fleet]\n" + broker + "group = lobby,,bar\n",
             ["FILE:3: error: group '' is empty; groups are comma-separated names, like lobby, floor-2"]),
            ("[fleet]\n" + broker + "group = lobby, lobby\n", ["FILE:3: error: group 'lobby' is named twice"]),
            ("[fleet]\n" + broker + "group = " + (1...17).map { "g\($0)" }.joined(separator: ",") + "\n",
             ["FILE:3: error: group names 17 groups; at most 16"]),
            ("[fleet]\n" + broker + "keepalive = 4\n", ["FILE:3: error: keepalive must be a whole number of seconds from 5 to 600, not '4'"]),
            ("[fleet]\n" + broker + "keepalive = 601\n", ["FILE:3: error: keepalive must be a whole number of seconds from 5 to 600, not '601'"]),
            ("[fleet]\n" + broker + "keepalive = 1e3\n", ["FILE:3: error: keepalive must be a whole number of seconds from 5 to 600, not '1e3'"]),
            ("[fleet]\n" + broker + "ha_discovery = maybe\n", ["FILE:3: error: ha_discovery must be yes or no, not 'maybe'"]),
            ("[fleet]\n" + broker + "ca_file = certs/ca.crt\n", ["FILE:3: error: ca_file must be an absolute path, not 'certs/ca.crt'"]),
            ("[fleet]\n" + broker + "ca_file = /nonexistent/ca.crt\n",
             ["FILE:3: warning: ca_file /nonexistent/ca.crt: No such file or directory; the fleet cannot connect until it is readable"]),
            ("[fleet]\n" + broker + "password = sesame-open\n", ["FILE:3: error: password needs a user"]),
            ("[fleet]\n" + broker + "user = two words\n", ["FILE:3: error: user must be one word, not 'two words'"]),
            ("[fleet]\n" + broker + "brokr = x\n", ["FILE:3: warning: unknown key 'brokr' in [fleet]; did you mean 'broker'?"]),
            ("[flet]\n", ["FILE:1: warning: unknown section [flet]; did you mean [fleet]?"]),
        ]
        for (text, expected) in cases {
            let (config, lines) = try scratch.load(text + demo)
            XCTAssertEqual(lines, expected, text)
            XCTAssertEqual(config == nil, expected.contains { $0.contains(": error: ") }, text)
        }
    }

    func testCertificateAndKeyGoTogetherAndNeedTLS() throws {
        for name in ["box.crt", "box.key"] { try scratch.write("x", name: name) }
        let cert = "cert_file = \(directory)/box.crt\n", key = "key_file = \(directory)/box.key\n"
        XCTAssertEqual(try scratch.load("[fleet]\nbroker = mqtts://b.example\n" + cert + demo).lines,
                       ["FILE:3: error: cert_file needs key_file, the certificate's private key"])
        XCTAssertEqual(try scratch.load("[fleet]\nbroker = mqtts://b.example\n" + key + demo).lines,
                       ["FILE:3: error: key_file needs cert_file, the certificate it is the key of"])
        XCTAssertEqual(try scratch.load("[fleet]\nbroker = mqtt://127.0.0.1\n" + cert + key + demo).lines,
                       ["FILE:3: error: cert_file needs TLS: make the broker mqtts://"])
    }

    func testAPasswordInAWorldReadableFileAndOnPlainMQTTIsWarnedOf() throws {
        let (config, lines) = try scratch.load("[fleet]\nbroker = mqtt://10.0.0.2\nuser = box\npassword = sesame-open\n" + demo, mode: 0o644)
        XCTAssertNotNil(config)
        XCTAssertEqual(lines, [
            "FILE:2: warning: broker mqtt://10.0.0.2:1883 is plain MQTT: status, commands and the password cross the network unencrypted; use mqtts://",
            "FILE:4: warning: config file FILE holds the fleet password and is readable by everyone; chmod 640 it",
        ])
        XCTAssertFalse(lines.joined().contains("sesame"))
    }

    func testBrokerURLs() {
        XCTAssertEqual(try MQTTBroker.parse("mqtts://[::1]:8884").get(), MQTTBroker(secure: true, host: "::1", port: 8884))
        XCTAssertEqual(try MQTTBroker.parse("mqtt://box.local/").get(), MQTTBroker(secure: false, host: "box.local", port: 1883))
        XCTAssertTrue(try MQTTBroker.parse("mqtt://127.0.0.1").get().isLoopback)
        XCTAssertFalse(try MQTTBroker.parse("mqtt://10.1.2.3").get().isLoopback)
        XCTAssertEqual(MQTTBroker(secure: true, host: "::1", port: 8884).description, "mqtts://[::1]:8884")
        for bad in ["mqtts://", "mqtts://:8883", "mqtts://[::1", "mqtts://a b", "mqtts://host:", "mqtts://host:x", "tcp://host"] {
            XCTAssertThrowsError(try MQTTBroker.parse(bad).get(), bad)
        }
    }
}
