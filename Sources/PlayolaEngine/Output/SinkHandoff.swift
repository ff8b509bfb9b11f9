/// A sink passed from the thread that made it to the one thread that will write to it.
// @unchecked Sendable: a sink is handed over once and used from then on by a single thread (the live
// engine's render thread, or a synchronous render the handing task awaits); nothing uses it concurrently.
public struct SinkHandoff: @unchecked Sendable {
    public let sink: any AudioSink
    public init(_ sink: any AudioSink) { self.sink = sink }
}
