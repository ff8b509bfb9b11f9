import Foundation
import Glibc
@testable import PlayolaDecoding
import PlayolaEngine
import XCTest

/// The window the AAC decoder reads its units through gives each unit's own bytes, whatever window it falls in.
final class UnitWindowTests: XCTestCase {
    private var path = ""
    private var file: FileDescriptor!
    /// Byte i of the file is a hash of i, so a byte from the wrong offset shows.
    private static func byte(_ offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: (offset &* 2_654_435_761) >> 13) }
    private static let fileBytes = 200_000

    override func setUpWithError() throws {
        path = NSTemporaryDirectory() + "unit-window-\(getpid())-\(UUID().uuidString)"
        try Data((0..<Self.fileBytes).map(Self.byte)).write(to: URL(fileURLWithPath: path))
        file = try FileDescriptor.open(path, O_RDONLY)
    }

    override func tearDown() {
        file?.close()
        unlink(path)
    }

    private func assertUnit(_ window: inout UnitWindow, offset: Int, size: Int, line: UInt = #line) {
        guard let at = window.locate(offset: Int64(offset), size: size, in: file) else {
            return XCTFail("unit at \(offset) (\(size) bytes) not found", line: line)
        }
        XCTAssertEqual(Array(window.bytes[at..<at + size]), (offset..<offset + size).map(Self.byte), "unit at \(offset)", line: line)
    }

    func testUnitsOneAfterAnotherAcrossManyWindows() {
        var window = UnitWindow(largestUnit: 700)
        var offset = 0
        var size = 300
        while offset + size <= Self.fileBytes {
            assertUnit(&window, offset: offset, size: size)
            offset += size
            size = 300 + (offset % 411) // sizes that straddle the windows' ends
        }
    }

    func testSeeksBackwardAndForward() {
        var window = UnitWindow(largestUnit: 1000)
        for offset in [150_000, 3, 99_999, 99_000, 150_500, 0, 199_000] {
            assertUnit(&window, offset: offset, size: 1000)
        }
    }

    func testAUnitLargerThanTheWindowsUsualSizeIsWholeToo() {
        let large = UnitWindow.preferredBytes + 5000
        var window = UnitWindow(largestUnit: large)
        assertUnit(&window, offset: 10, size: large)
        assertUnit(&window, offset: 10 + large, size: large)
    }

    func testAUnitPastTheFilesEndIsNotFoundAndThePaddingIsZeros() {
        var window = UnitWindow(largestUnit: 4000)
        assertUnit(&window, offset: Self.fileBytes - 40_000, size: 4000) // a full window, bytes beyond 4000 set
        XCTAssertNil(window.locate(offset: Int64(Self.fileBytes - 100), size: 200, in: file))
        let tail = Self.fileBytes - 100
        guard let at = window.locate(offset: Int64(tail), size: 100, in: file) else { return XCTFail("the file's last unit") }
        XCTAssertEqual(Array(window.bytes[at + 100..<at + 100 + UnitWindow.padding]), [UInt8](repeating: 0, count: UnitWindow.padding))
        XCTAssertNil(window.locate(offset: -1, size: 10, in: file))
        XCTAssertNil(window.locate(offset: 0, size: 4001 + UnitWindow.preferredBytes, in: file), "more than the window holds")
    }
}
