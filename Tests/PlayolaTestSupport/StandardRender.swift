import PlayolaEngine

/// The standard schedule (`ToneSchedule.standard()`) rendered once in virtual time, shared by the render, join
/// and station-render tests, which each analyse it.
package enum StandardRender {
    // Only the XCTest thread reads and writes it: tests of one process run one after another.
    nonisolated(unsafe) private static var cached: (ToneSchedule, CaptureSink, [PlayEvent])?

    package static func get() throws -> (ToneSchedule, CaptureSink, [PlayEvent]) {
        if let cached { return cached }
        let tones = try ToneSchedule.standard()
        let (sink, events) = try tones.render(seconds: 180)
        cached = (tones, sink, events)
        return (tones, sink, events)
    }
}
