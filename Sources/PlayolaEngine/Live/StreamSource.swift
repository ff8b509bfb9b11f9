import PlayolaDecoding

/// What the live engine needs of a source that plays as it arrives (an internet radio stream): a decoder
/// over its bytes once enough are there to tell the format, and where to say that it sounds or failed.
/// The engine does not know where the bytes come from; the network's `StreamConnection` is one.
package protocol StreamSource: AnyObject, Sendable {
    /// Where it comes from: the voice's file name in logs.
    var url: String { get }
    /// What the listener knows it as.
    var name: String { get }
    /// Seconds to hold before it sounds, and again after it ran dry.
    var prebufferSeconds: Double { get }
    /// Seconds its jitter buffer holds at most.
    var maxBufferSeconds: Double { get }
    /// The decoder over the bytes received, or nil while too few have arrived to tell the format.
    func makeDecoder() throws(AudioDecoderError) -> (any StreamDecoder)?
    /// Its voice is heard.
    func markSounding()
    /// It cannot go on; the first reason is kept.
    func fail(_ reason: String)
}
