import Foundation
import PlayolaEngine
import Synchronization
import XCTest
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaGPIO

final class GPIOServiceTests: XCTestCase {
    private let next = LineRef.name("GPIO17"), status = LineRef.name("GPIO23")

    private func waitFor(_ what: String, timeout: Double = 5, _ condition: () -> Bool) {
        let end = Date().addingTimeInterval(timeout)
        while !condition() && Date() < end { usleep(2000) }
        XCTAssertTrue(condition(), "timed out waiting for \(what)")
    }

    func testPressingNextStationPerformsItOnce() {
        let source = FakeLineSource(levels: [next: true], idleSleep: 0.001)
        let recorder = ActionRecorder()
        recorder.ledState.withLock { $0 = .playing }
        let service = GPIOService.start(config: .buttons([(.nextStation, "GPIO17"), (.stop, "GPIO27")]),
                                        led: .init(status: status), actions: recorder.gpioActions(clock: source.now),
                                        source: source)
        source.scriptFromNow([(next, false, 0.5), (next, true, 0.6)])
        waitFor("next_station") { !recorder.actions.isEmpty }
        // Let the scripted clock run on: still once.
        let later = source.now() + 30
        waitFor("the clock to run on") { source.now() > later }
        service.stop()
        XCTAssertEqual(recorder.actions, [.nextStation])
        XCTAssertEqual(source.outputs.map(\.on), [true, false], "lit while playing, dark once stopped")
    }

    func testNothingConfiguredIsANoOp() throws {
        let recorder = ActionRecorder()
        let service = try GPIOService.start(config: GPIOConfig(), led: .init(), actions: recorder.gpioActions { 0 })
        service.stop()
        service.stop()
    }

    /// A garbled line in the fake source's pipe is reported as a fault (the service logs it) and skipped.
    func testAGarbledFakeLineIsReportedNotLoggedByTheGPIOLayer() throws {
        let path = NSTemporaryDirectory() + "gpio-fault-\(UUID().uuidString.prefix(8))"
        defer { unlink(path) }
        let faults = Mutex<[GPIOFault]>([])
        let source = try FIFOLineSource(path: path, fault: { fault in faults.withLock { $0.append(fault) } })
        let pipe = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        pipe.write(Data("GPIO17 maybe\nGPIO17 0\n".utf8))
        let event = try XCTUnwrap(source.nextEvent(timeout: 1))
        XCTAssertEqual(event.line, next)
        XCTAssertFalse(event.level)
        let reported = faults.withLock { $0 }
        XCTAssertEqual(reported, [.fakeLine(path: path, text: "GPIO17 maybe")])
        XCTAssertTrue(reported[0].isWarning)
        XCTAssertEqual("\(reported[0])", "gpio: \(path): expected 'NAME 0' or 'NAME 1', not 'GPIO17 maybe'")
    }

    /// The service as it runs with `chip = fake:PATH`: levels written to a named pipe, outputs to PATH.out.
    func testFIFOSource() throws {
        let folder = NSTemporaryDirectory() + "playola-gpio-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/lines"

        let ini = folder + "/playola.ini"
        try """
        [gpio]
        chip = fake:\(fifo)
        next_station = GPIO17
        [led]
        status = GPIO23
        [station porch]
        type = local
        path = \(folder)
        """.write(toFile: ini, atomically: true, encoding: .utf8)
        let (loaded, diagnostics) = ApplianceConfig.load(path: ini)
        let config = try XCTUnwrap(loaded, "\(diagnostics)")
        XCTAssertEqual(config.gpio.chip, "fake:\(fifo)")

        let recorder = ActionRecorder()
        recorder.ledState.withLock { $0 = .playing }
        let service = try GPIOService.start(config: config.gpio, led: config.led,
                                            actions: recorder.gpioActions(clock: monotonicSeconds))
        defer { service.stop() }
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        writer.write(Data("GPIO17 0\n".utf8))
        usleep(100_000)
        writer.write(Data("GPIO17 1\nnonsense\n".utf8))
        waitFor("next_station") { !recorder.actions.isEmpty }
        usleep(200_000)
        XCTAssertEqual(recorder.actions, [.nextStation])
        service.stop()
        XCTAssertEqual(try String(contentsOfFile: fifo + ".out", encoding: .utf8), "GPIO23 1\nGPIO23 0\n")
    }
}
