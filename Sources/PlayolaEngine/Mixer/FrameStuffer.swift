import Glibc

/// Holds a stream against the DAC's clock the way Shairport Sync does by default: its frames play 1:1, a
/// plain copy, and the drift loop's correction is made by deleting one stereo frame (a server that sends
/// too much) or inserting one (too little) each time the frames owed add up to a whole one: at 100 ppm,
/// one in 10 000. That costs next to nothing, where `DriftBend` (`clock_hold = resample`) filters every frame.
///
/// A frame cut or added in one step is a click (the wave jumps by about its slope: on the music-like signal
/// of `FrameStufferTests`, a third difference 90 times the signal's own around it). So the one frame is
/// taken or given over a splice of `spliceFrames` (256, 5.8 ms at 44.1 kHz) whose frames are read at
/// positions sliding from one frame to the next along a raised cosine, through `FractionalDelay`: the pitch
/// moves by at most π/2 ÷ 257 (0.6 %) for those few milliseconds, and the third difference stays within
/// 2.5 % of the signal's own. And the splice goes where it is heard least: it moves the wave by up to a
/// frame, which changes it by about its slope, so within the `searchFrames` (1024, 23 ms) after the frame
/// fell due it takes the stretch whose slope is smallest (a pause, a quiet or a low passage). A small sample
/// alone is no such place: a tone is steepest where it crosses zero.
///
/// To search ahead it holds back `searchFrames + spliceFrames + 16` frames (29 ms at 44.1 kHz), a constant
/// delay the drift loop's target takes in. With no correction it is a copy, bit for bit.
package final class FrameStuffer {
    /// Input frames per output frame, minus 1: positive plays faster (deletes frames).
    package var correction = 0.0
    /// The frames the last `process` (or `flush`) made, interleaved stereo.
    package let output: UnsafeMutablePointer<Float>
    package let spliceFrames: Int
    package let searchFrames: Int
    let outputCapacity: Int

    /// Beyond this splices would follow one another with no room to be placed; the drift loop stops at 0.1 %.
    static let limit = 0.002
    /// Frames kept before the next one to play: a splice reads as far back as the filter reaches.
    private static let history = FractionalDelay.before + 1
    private let maxInput: Int
    /// Frames held back, so that a splice that falls due could be placed anywhere in the next
    /// `searchFrames`: `searchFrames + spliceFrames + 16`. The last of a stream play as they are (`flush`).
    package let lookahead: Int
    /// Interleaved stereo: `history` frames played, then those still to play.
    private let held: UnsafeMutablePointer<Float>
    private var count: Int
    /// The next held frame to play.
    private var next: Int
    /// Frames to delete (positive) or insert (negative) to be where the correction puts the stream.
    private var owed = 0.0
    /// The splice that fell due, once placed: the held frame it starts at, which way, its frames made so far.
    private struct Splice {
        var start: Int
        var deleting: Bool
        var done = 0
    }

    private var splice: Splice?
    /// `FractionalDelay` coefficients of each splice frame, `taps` a row: deleting (`spliceFrames` rows),
    /// inserting (`spliceFrames + 1` rows). Fixed, so a splice costs only its multiply-adds.
    private let deletingRows: UnsafeMutablePointer<Float>
    private let insertingRows: UnsafeMutablePointer<Float>

    /// Room for `maxInputFrames` a call.
    package init(maxInputFrames: Int, spliceFrames: Int = 256, searchFrames: Int = 1024) {
        maxInput = maxInputFrames
        self.spliceFrames = max(1, spliceFrames)
        self.searchFrames = max(1, searchFrames)
        lookahead = self.searchFrames + self.spliceFrames + FractionalDelay.after
        // Between calls it holds at most `lookahead` frames, and a splice's frames while it waits for more.
        let heldCapacity = Self.history + lookahead + self.spliceFrames + 1 + maxInputFrames
        held = .allocate(capacity: heldCapacity * 2)
        // Silence before the first frame: what a splice at the very start reads behind it.
        held.initialize(repeating: 0, count: heldCapacity * 2)
        count = Self.history
        next = Self.history
        // A call plays at most what it held plus what came; an insertion adds one frame per splice.
        let played = heldCapacity
        outputCapacity = played + played / self.spliceFrames + 1
        output = .allocate(capacity: outputCapacity * 2)
        deletingRows = Self.rows(frames: self.spliceFrames, deleting: true)
        insertingRows = Self.rows(frames: self.spliceFrames + 1, deleting: false)
    }

    deinit {
        held.deallocate()
        output.deallocate()
        deletingRows.deallocate()
        insertingRows.deallocate()
    }

    /// Takes `frames` (at most `maxInputFrames`) interleaved stereo frames; returns how many output frames
    /// are in `output`. The last `lookahead` input frames wait for the ones after them.
    package func process(_ input: UnsafePointer<Float>, frames: Int) -> Int {
        let frames = max(0, min(frames, maxInput))
        (held + 2 * count).update(from: input, count: 2 * frames)
        count += frames
        let perFrame = owedPerFrame
        var produced = 0
        // Held frames before `end` play (a splice's frames each stand for one of them): one that falls due
        // there still finds its whole search window held. So as many frames go out as came in, give or take
        // the one a splice adds or takes, and the buffer's level moves by no more than that.
        let end = count - lookahead
        while next < end {
            guard let chosen = splice else {
                if owed.magnitude < 1 {
                    // Copy up to where a whole frame is owed.
                    var run = end - next
                    if perFrame != 0 {
                        let due = ((perFrame > 0 ? 1 : -1) - owed) / perFrame
                        if due < Double(run) { run = max(1, Int(due.rounded(.up))) }
                    }
                    owed += Double(run) * perFrame
                    copy(run, produced: &produced)
                } else {
                    splice = Splice(start: quietest(from: next, within: searchWindow(perFrame: perFrame)), deleting: owed > 0)
                }
                continue
            }
            if next < chosen.start {
                let run = min(chosen.start, end) - next
                owed += Double(run) * perFrame
                copy(run, produced: &produced)
            } else if !continueSplice(upTo: end - chosen.start, produced: &produced) {
                break // its next frames stand for held frames not yet played
            }
        }
        compact()
        return produced
    }

    /// The stream ended: what is held plays as it is, after the rest of a splice begun (nothing follows it
    /// to search). Returns the frames in `output`.
    package func flush() -> Int {
        var produced = 0
        if let chosen = splice, chosen.done > 0 { _ = continueSplice(upTo: .max, produced: &produced) }
        splice = nil
        copy(count - next, produced: &produced)
        compact()
        return produced
    }

    /// The correction as frames owed per held frame played: a frame in plays as 1 / (1 + correction) out.
    private var owedPerFrame: Double {
        let correction = correction.isFinite ? max(-Self.limit, min(Self.limit, correction)) : 0
        return correction / (1 + correction)
    }

    /// How far ahead a splice that fell due may go: `searchFrames`, but no further than half the frames
    /// between two splices, so that the next does not fall due meanwhile; owing two frames, nowhere.
    private func searchWindow(perFrame: Double) -> Int {
        guard owed.magnitude < 2 else { return 1 }
        guard perFrame != 0 else { return searchFrames }
        return max(1, Int(min(Double(searchFrames), 0.5 / perFrame.magnitude)))
    }

    /// `frames` held frames from `next` to `output`, unchanged.
    private func copy(_ frames: Int, produced: inout Int) {
        (output + 2 * produced).update(from: held + 2 * next, count: 2 * frames)
        produced += frames
        next += frames
    }

    /// The splice's frames, up to its frame `limit` (exclusive), read through the rows made for it: deleting,
    /// `spliceFrames + 1` held frames from its start become `spliceFrames`; inserting, `spliceFrames` become
    /// `spliceFrames + 1`. True once it is done, `next` then past it.
    private func continueSplice(upTo limit: Int, produced: inout Int) -> Bool {
        guard var chosen = splice else { return true }
        let frames = chosen.deleting ? spliceFrames : spliceFrames + 1
        let rows = chosen.deleting ? deletingRows : insertingRows
        // Deleting, splice frame j is read between held frames start + j and the one after; inserting,
        // between start + j − 1 and start + j.
        let firstWhole = chosen.deleting ? chosen.start : chosen.start - 1
        let last = min(frames, limit)
        for frame in chosen.done..<max(chosen.done, last) {
            let first = held + 2 * (firstWhole + frame - FractionalDelay.before)
            let row = rows + frame * FractionalDelay.taps
            let read = FractionalDelay.apply(row, left: first, right: first + 1, stride: 2)
            output[2 * produced] = read.left
            output[2 * produced + 1] = read.right
            produced += 1
        }
        chosen.done = max(chosen.done, last)
        guard chosen.done == frames else {
            splice = chosen
            return false
        }
        let taken = chosen.deleting ? spliceFrames + 1 : spliceFrames
        next = chosen.start + taken
        owed += Double(taken) * owedPerFrame + (chosen.deleting ? -1 : 1)
        splice = nil
        return true
    }

    /// Where, from `first` within `window` frames, a splice would touch the least slope: the sum of both
    /// channels' |difference| over the frames it reads (the one before it, its own). Kept as a sliding sum.
    private func quietest(from first: Int, within window: Int) -> Int {
        func slope(_ frame: Int) -> Float {
            let at = held + 2 * frame
            return abs(at[2] - at[0]) + abs(at[3] - at[1])
        }
        var sum: Float = 0
        for frame in (first - 1)..<(first + spliceFrames) { sum += slope(frame) }
        var best = first
        var least = sum
        for start in (first + 1)..<(first + window) {
            sum += slope(start + spliceFrames - 1) - slope(start - 2)
            if sum < least {
                least = sum
                best = start
            }
        }
        return best
    }

    /// Drops what no splice reads any more.
    private func compact() {
        let drop = next - Self.history
        guard drop > 0 else { return }
        memmove(held, held + 2 * drop, 2 * (count - drop) * MemoryLayout<Float>.size)
        count -= drop
        next -= drop
        splice?.start -= drop
    }

    /// The splice's read positions, `frames` of them sliding along a raised cosine from one held frame to the
    /// next (deleting: ahead by 0 → 1; inserting: behind by 0 → 1), as `FractionalDelay` coefficient rows.
    private static func rows(frames: Int, deleting: Bool) -> UnsafeMutablePointer<Float> {
        let rows = UnsafeMutablePointer<Float>.allocate(capacity: frames * FractionalDelay.taps)
        FractionalDelay.table.withUnsafeBufferPointer { table in
            for frame in 0..<frames {
                let shift = (1 - cos(Double.pi * Double(frame + 1) / Double(frames + 1))) / 2
                FractionalDelay.coefficients(fraction: deleting ? shift : 1 - shift, table: table,
                                             into: rows + frame * FractionalDelay.taps)
            }
        }
        return rows
    }
}
