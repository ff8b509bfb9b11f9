import Foundation
import PlayolaEngine
import PlayolaTestSupport
import XCTest
@testable import PlayolaControl

/// The lines for the states a test service cannot be brought into at will, from the service's JSON.
final class StatusTextTests: XCTestCase {
    func report(_ json: String) throws -> StatusReport {
        try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
    }


    func testPausedForALostDeviceWithTheConfigOnItsLastGoodCopy() throws {
        let paused = try report(#"{"# + StatusJSON.paused + #","state":"paused","reason":"deviceLost","station":"porch","spin":{"title":"Song","artist":"Artist","airtime":"2026-11-30T20:00:00.000Z","position":83.4,"length":225},"next":{"title":"Other","artist":"Band","airtime":"2026-11-30T20:03:45.000Z","position":-141.6,"length":200}}"#)
        XCTAssertEqual(StatusText.lines(paused), [
            "State:   paused (device lost)",
            "Station: porch (scheduled spins)",
            "Spin:    Artist – Song  1:23 / 3:45",
            "Next:    Band – Other in 2:21",
            "Device:  hw:0 (not available)",
            "Volume:  70%",
            "Cache:   1.5 MiB of 512.0 MiB (3 files)",
            "Config:  /boot/firmware/playola.ini has errors; running on the last good copy /var/lib/playola/last-good.ini",
            "         /boot/firmware/playola.ini:5: error: rate must be auto, 48000 or 44100, not '12345'",
            "Uptime:  1:02:05",
        ])
        XCTAssertEqual(StatusText.outcome(of: .resume, paused), "Paused: porch (device lost)")
    }
}

/// The exact lines for a stream with its ICY title, an error with its time, and a missing device.
final class StatusLinesTests: XCTestCase {
    func report(_ json: String) throws -> StatusReport {
        try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
    }

    static let common = #""ok":true,"device":"hw:0","volume":70,"uptime":65,"config":{"file":"/boot/firmware/playola.ini","lastGood":"/var/lib/playola/last-good.ini","usingLastGood":false},"cache":{"bytes":0,"budget":536870912,"files":0}"#
    let now = PlayolaDate.parse("2026-12-01T00:20:00Z")!

    func testAStreamWithItsICYTitleAndAnEarlierNetworkFailure() throws {
        let playing = try report(#"{"# + Self.common + #","deviceAvailable":true,"deviceRate":44100,"deviceFormat":"s16","state":"playing","station":"radio","stationType":"stream","spin":{"title":"A Tune","artist":"The Band","airtime":"2026-12-01T00:17:55.000Z","position":125.2},"stream":{"url":"http://radio.example/live.mp3","name":"Example FM","bitrate":128,"format":"mp3","title":"The Band - A Tune"},"network":{"reachable":true,"lastError":"the server ended the stream","lastErrorAt":"2026-12-01T00:17:50.000Z"}}"#)
        XCTAssertEqual(StatusText.lines(playing, now: now), [
            "State:   playing",
            "Station: radio (internet radio, Example FM, mp3, 128 kbit/s)",
            "Playing: The Band – A Tune  2:05",
            "Device:  hw:0 (open, 44100 Hz, s16)",
            "Volume:  70%",
            "Network: the station's server answers; last failure: the server ended the stream (2:10 ago, 2026-12-01 00:17:50 UTC)",
            "Cache:   0 B of 512.0 MiB (0 files)",
            "Config:  /boot/firmware/playola.ini",
            "Uptime:  1:05",
        ])
        XCTAssertEqual(StatusText.outcome(of: .play(station: nil, ago: nil), playing), "Now playing: radio — \"A Tune\" by The Band")
    }

    func testStoppedWithTheLastErrorAndWhenItHappened() throws {
        let stopped = try report(#"{"# + Self.common + #","deviceAvailable":true,"deviceRate":48000,"deviceFormat":"s32","state":"idle","station":"porch","stationType":"playola","lastError":"station porch not found (HTTP 404)","lastErrorAt":"2026-12-01T00:08:30.000Z","network":{"lastError":"schedule fetch failed: cannot connect: Connection refused","lastErrorAt":"2026-12-01T00:05:00.000Z"}}"#)
        XCTAssertEqual(StatusText.lines(stopped, now: now), [
            "State:      stopped",
            "Station:    porch (Playola station)",
            "Device:     hw:0 (open, 48000 Hz, s32)",
            "Volume:     70%",
            "Network:    last failure: schedule fetch failed: cannot connect: Connection refused (15:00 ago, 2026-12-01 00:05:00 UTC)",
            "Cache:      0 B of 512.0 MiB (0 files)",
            "Config:     /boot/firmware/playola.ini",
            "Last error: station porch not found (HTTP 404) (11:30 ago, 2026-12-01 00:08:30 UTC)",
            "Uptime:     1:05",
        ])
        XCTAssertEqual(StatusText.outcome(of: .stop, stopped), "Stopped.")
    }

    func testAnErrorAndAStationWaitingForItsDevice() throws {
        let failed = try report(#"{"# + Self.common + #","deviceAvailable":true,"state":"error","station":"porch","stationType":"playola","lastError":"station porch has no spins scheduled","lastErrorAt":"2026-12-01T00:19:58.000Z","network":{"reachable":true}}"#)
        XCTAssertEqual(StatusText.state(failed), "error (station porch has no spins scheduled)")
        XCTAssertFalse(StatusText.lines(failed, now: now).contains { $0.hasPrefix("Last error:") }, "said once, in State")
        XCTAssertEqual(StatusText.outcome(of: .play(station: nil, ago: nil), failed), "porch: error: station porch has no spins scheduled")
        let waiting = try report(#"{"# + Self.common + #","deviceAvailable":false,"state":"paused","reason":"noDevice","station":"low","stationType":"local","spin":{"title":"low","artist":"","airtime":"2026-12-01T00:19:00.000Z","position":60,"length":90}}"#)
        XCTAssertEqual(Array(StatusText.lines(waiting, now: now).prefix(4)), [
            "State:   paused (no audio device)",
            "Station: low (local folder)",
            "Spin:    low  1:00 / 1:30",
            "Device:  hw:0 (not available)",
        ])
        XCTAssertEqual(StatusText.outcome(of: .play(station: nil, ago: nil), waiting), "Paused: low (no audio device)")
    }
}
