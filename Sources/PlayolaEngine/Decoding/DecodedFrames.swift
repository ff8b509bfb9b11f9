/// The frames of a decoder's last unit not yet handed out. The samples stay the library's (or the silence
/// buffer's) until the next decode, so they are read from where they are, never copied first.
struct DecodedFrames {
    private var next: UnsafePointer<Float>?
    private var channels = 0
    /// Frames left.
    private(set) var count = 0

    /// A newly decoded unit: `frames` interleaved frames of `channels` samples each.
    mutating func hold(_ samples: UnsafePointer<Float>, frames: Int, channels: Int) {
        next = samples
        count = frames
        self.channels = channels
    }

    /// Copies up to `limit` frames to `destination`; how many it copied.
    mutating func move(upTo limit: Int, into destination: UnsafeMutablePointer<Float>) -> Int {
        let moved = min(count, limit)
        if moved > 0 { destination.update(from: next!, count: moved * channels) }
        skip(moved)
        return moved
    }

    /// Drops `frames` of them (at most all there are).
    mutating func skip(_ frames: Int) {
        let skipped = min(count, frames)
        guard skipped > 0 else { return }
        next! += skipped * channels
        count -= skipped
    }

    mutating func removeAll() { count = 0 }
}
