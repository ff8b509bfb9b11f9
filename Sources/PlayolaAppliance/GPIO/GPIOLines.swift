import CGPIO
import Glibc

/// One edge as the kernel reported it.
struct GPIOEdge: Sendable, Equatable {
    var offset: Int
    var rising: Bool
    /// Seconds, from the kernel's timestamp.
    var time: Double
}

/// Lines of one chip requested together: the one Swift owner of a `cgpio_request`. Released on deinit.
final class GPIOLines {
    private let handle: OpaquePointer
    /// libgpiod 1.x lines live in their chip's handle, so the chip must outlive the request.
    private let chip: GPIOChip
    let offsets: [Int]

    init(_ handle: OpaquePointer, chip: GPIOChip, offsets: [Int]) {
        self.handle = handle
        self.chip = chip
        self.offsets = offsets
    }

    deinit { cgpio_request_release(handle) }

    var chipName: String { chip.name }

    /// To poll for edges: one per line on libgpiod 1.x, one in all on 2.x; none for outputs.
    var fileDescriptors: [Int32] {
        (0..<cgpio_request_fd_count(handle)).map { cgpio_request_fd(handle, $0) }
    }

    /// The edges waiting on `fileDescriptors[index]`; blocks when there are none. nil on an error, with errno.
    func readEdges(fromDescriptorAt index: Int) -> [GPIOEdge]? {
        var events = [cgpio_event](repeating: cgpio_event(), count: 16)
        let count = cgpio_request_read_events(handle, index, &events, events.count)
        guard count >= 0 else { return nil }
        return events[0..<Int(count)].map {
            GPIOEdge(offset: Int($0.offset), rising: $0.rising, time: Double($0.timestamp_ns) / 1e9)
        }
    }

    func value(_ offset: Int) -> Bool? {
        let value = cgpio_request_get_value(handle, UInt32(offset))
        return value < 0 ? nil : value == 1
    }

    /// False on an error, with errno.
    @discardableResult
    func set(_ offset: Int, _ active: Bool) -> Bool {
        cgpio_request_set_value(handle, UInt32(offset), active) == 0
    }
}
