import Glibc
import PlayolaEngine
import PlayolaConfig

/// The lines of a real board through libgpiod: every input's event descriptors polled from the one thread
/// that calls `nextEvent`.
final class LibgpiodLineSource: GPIOLineSource {
    static let consumer = "playola"

    private var requests: [GPIOLines] = []
    /// Per request: kernel offset → configured line.
    private var lineRefs: [[Int: LineRef]] = []
    private var inputs: [LineRef: (request: Int, offset: Int)] = [:]
    private var outputs: [LineRef: (request: Int, offset: Int)] = [:]
    private var polled: [pollfd] = []
    private var polledOwner: [(request: Int, descriptor: Int)] = []
    /// Read but not yet returned, oldest first.
    private var pending: [LineEvent] = []
    private var pendingIndex = 0
    private let fault: @Sendable (GPIOFault) -> Void

    /// `chip`: where lines given by offset are, and where names are looked for first. `bias` holds open
    /// contacts at their idle level.
    init(
        chip: String?, inputs: [LineRef], outputs: [LineRef], bias: GPIOBias, fault: @escaping @Sendable (GPIOFault) -> Void = { _ in }
    ) throws(GPIOError) {
        self.fault = fault
        var chips: [String: GPIOChip] = [:]
        let configured = try chip.map { spec throws(GPIOError) in try GPIOChip(spec) }
        if let configured { chips[configured.name] = configured }

        func resolve(_ line: LineRef) throws(GPIOError) -> (chip: GPIOChip, offset: Int) {
            switch line {
            case .offset(let offset):
                guard let configured else { throw .needsChip(line) }
                guard offset < configured.info.lines else { throw .offsetOutOfRange(offset, chip: configured.info) }
                return (configured, offset)
            case .name(let name):
                if let configured, let offset = configured.offset(ofLine: name) { return (configured, offset) }
                let found = try GPIOChip.find(line: name)
                if chips[found.chip] == nil { chips[found.chip] = try GPIOChip(found.chip) }
                return (chips[found.chip]!, found.offset)
            }
        }

        // One request per chip and direction: all of a chip's buttons come and go together.
        for (lines, isInput) in [(inputs, true), (outputs, false)] {
            var byChip: [(chip: GPIOChip, lines: [(LineRef, Int)])] = []
            for line in lines {
                let (chip, offset) = try resolve(line)
                if let index = byChip.firstIndex(where: { $0.chip === chip }) {
                    byChip[index].lines.append((line, offset))
                } else {
                    byChip.append((chip, [(line, offset)]))
                }
            }
            for (chip, lines) in byChip {
                let offsets = lines.map(\.1)
                let request = isInput
                    ? try chip.requestInputs(offsets, activeLow: false, bias: bias, consumer: Self.consumer)
                    : try chip.requestOutputs(offsets, consumer: Self.consumer)
                let index = requests.count
                requests.append(request)
                lineRefs.append(Dictionary(lines.map { ($0.1, $0.0) }, uniquingKeysWith: { first, _ in first }))
                for (line, offset) in lines {
                    if isInput { self.inputs[line] = (index, offset) } else { self.outputs[line] = (index, offset) }
                }
                for (descriptor, fd) in request.fileDescriptors.enumerated() {
                    polled.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
                    polledOwner.append((index, descriptor))
                }
            }
        }
    }

    func nextEvent(timeout: Double) -> LineEvent? {
        if pendingIndex == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
            collect(timeout: timeout)
        }
        guard pendingIndex < pending.count else { return nil }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    /// Waits for edges, then takes every one already queued on any line before sorting: on libgpiod 1.x each
    /// line has its own descriptor, and an encoder's A and B must still come in the order they happened.
    private func collect(timeout: Double) {
        var wait = Int32(min(max(timeout, 0) * 1000, 3_600_000).rounded(.up))
        while true {
            let ready: Int32
            do { ready = try retryOnInterrupt { poll(&polled, nfds_t(polled.count), wait) } } catch {
                fault(.poll(errno: error.rawValue))
                break
            }
            guard ready > 0 else { break }
            let now = monotonicSeconds()
            for index in polled.indices where polled[index].revents != 0 {
                let owner = polledOwner[index]
                if polled[index].revents & Int16(POLLIN) == 0 {
                    // The chip went away (an unplugged USB GPIO board): stop asking rather than spin.
                    fault(.stoppedReporting(chip: requests[owner.request].chipName))
                    polled[index].fd = -1
                    continue
                }
                guard let edges = requests[owner.request].readEdges(fromDescriptorAt: owner.descriptor) else {
                    fault(.readingEdges(errno: errno))
                    continue
                }
                for edge in edges {
                    guard let line = lineRefs[owner.request][edge.offset] else { continue }
                    pending.append(LineEvent(line: line, level: edge.rising, time: Self.monotonic(edge.time, now: now)))
                }
            }
            wait = 0
        }
        pending.sort { $0.time < $1.time }
    }

    /// Kernels before 5.7 stamp edges with the wall clock; the logic's deadlines are monotonic.
    private static func monotonic(_ stamp: Double, now: Double) -> Double {
        abs(stamp - now) < 1 ? stamp : now
    }

    func setOutput(_ line: LineRef, _ on: Bool) {
        guard let output = outputs[line] else { return }
        if !requests[output.request].set(output.offset, on) {
            fault(.setting(line, errno: errno))
        }
    }

    func level(of line: LineRef) -> Bool? {
        inputs[line].flatMap { requests[$0.request].value($0.offset) }
    }
}
