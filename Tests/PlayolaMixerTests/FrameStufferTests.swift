import Foundation
import PlayolaEngine
import PlayolaTestSupport
import XCTest

/// Issue 31: a stream held against the DAC's clock by frame stuffing. Something like music goes through a
/// `FrameStuffer` at 500 ppm each way; the splices are found from the output samples alone (where they
/// leave the 1:1 signal and where they rejoin it a frame ahead or behind), counted against the correction,
/// and their third difference (a click's mark) held to the signal's own. With no correction the stream
/// passes bit for bit, through the stuffer and through a real `StreamVoice`.
final class FrameStufferTests: XCTestCase {
    static let rate = 44100

    /// 20 s of something like music, interleaved stereo: a bass note and a three-note chord struck every
    /// 0.5 s (a 5 ms attack, a 0.4 s decay, a 50 ms release as the next one rings), each note 8 harmonics
    /// falling as 1/k² (up to 3.1 kHz), the chord's notes placed apart left and right; peaks near −6 dBFS.
    static let music: [Float] = {
        let bass = [110.0, 87.31, 98.0, 110.0, 130.81, 98.0, 87.31, 82.41]
        let frames = 20 * rate
        var left = [Double](repeating: 0, count: frames)
        var right = [Double](repeating: 0, count: frames)
        for strike in 0..<40 {
            let root = bass[strike % bass.count]
            let third = strike % 2 == 0 ? 1.26 : 1.189
            // (frequency, amplitude, share on the left)
            let notes = [(root, 0.2, 0.5), (2 * root, 0.08, 0.8), (2 * root * third, 0.08, 0.5), (2 * root * 1.498, 0.08, 0.2)]
            let first = strike * rate / 2
            for (frequency, amplitude, share) in notes {
                // The fundamental's phase u (from 0.7) as a turning phasor; harmonic k is sin(k u) by the
                // recurrence sin(k u) = 2 cos(u) sin((k − 1) u) − sin((k − 2) u): no sine call per sample.
                let turn = 2 * Double.pi * frequency / Double(rate)
                let (turnCosine, turnSine) = (cos(turn), sin(turn))
                var (cosine, sine) = (cos(0.7), sin(0.7))
                for frame in first..<min(frames, first + rate) {
                    let t = Double(frame - first) / Double(rate)
                    let release = t < 0.95 ? 1 : 0.5 * (1 + cos(Double.pi * (t - 0.95) / 0.05))
                    let attack = t < 0.005 ? 0.5 * (1 - cos(Double.pi * t / 0.005)) : 1
                    let envelope = attack * exp(-t / 0.4) * release
                    var (previous, current, value) = (0.0, sine, 0.0)
                    for k in 1...8 {
                        value += current / Double(k * k)
                        (previous, current) = (current, 2 * cosine * current - previous)
                    }
                    value *= amplitude * envelope
                    left[frame] += value * share
                    right[frame] += value * (1 - share)
                    (cosine, sine) = (cosine * turnCosine - sine * turnSine, sine * turnCosine + cosine * turnSine)
                }
            }
        }
        return (0..<frames).flatMap { [Float(left[$0]), Float(right[$0])] }
    }()

    /// `input` through a stuffer at `correction`, 1024 frames a call as the pipeline feeds it (or calls of
    /// `chunks` frames in turn), then flushed.
    func stuffed(_ input: [Float], correction: Double, spliceFrames: Int = 256, searchFrames: Int = 1024, chunks: [Int] = [1024]) -> [Float] {
        let stuffer = FrameStuffer(maxInputFrames: 1024, spliceFrames: spliceFrames, searchFrames: searchFrames)
        stuffer.correction = correction
        var output: [Float] = []
        let frames = input.count / 2
        input.withUnsafeBufferPointer { samples in
            var (first, call) = (0, 0)
            while first < frames {
                let count = min(chunks[call % chunks.count], frames - first)
                let made = stuffer.process(samples.baseAddress! + 2 * first, frames: count)
                output += UnsafeBufferPointer(start: stuffer.output, count: 2 * made)
                (first, call) = (first + count, call + 1)
            }
        }
        let rest = stuffer.flush()
        output += UnsafeBufferPointer(start: stuffer.output, count: 2 * rest)
        return output
    }

    /// A stretch of output (frames `start ..< end`) that is not the input 1:1; after it the output is the input
    /// from `shift` frames further on (1: a frame deleted, −1: inserted). `from`: the input frame it began at.
    struct Splice {
        var start: Int
        var end: Int
        var shift: Int
        var from: Int
    }

    /// The splices, found by walking the output along the input: frame for frame equal, bit for bit, except
    /// where a splice begins; it ends where 16 frames in a row equal the input one frame ahead or behind.
    /// Nil (and a failure) for a difference that is no such splice.
    func splices(in output: [Float], of input: [Float]) -> [Splice]? {
        let frames = output.count / 2
        let inputFrames = input.count / 2
        func same(_ frame: Int, _ offset: Int) -> Bool {
            let from = frame + offset
            return from >= 0 && from < inputFrames
                && output[2 * frame] == input[2 * from] && output[2 * frame + 1] == input[2 * from + 1]
        }
        var found: [Splice] = []
        var offset = 0
        var frame = 0
        while frame < frames {
            if same(frame, offset) {
                frame += 1
                continue
            }
            var rejoined: (at: Int, shift: Int)?
            search: for end in (frame + 1)..<min(frames, frame + 4096) {
                for shift in [1, -1] where (0..<min(16, frames - end)).allSatisfy({ same(end + $0, offset + shift) }) {
                    rejoined = (end, shift)
                    break search
                }
            }
            guard let rejoined else {
                XCTFail("output frame \(frame) is neither the input nor a splice")
                return nil
            }
            found.append(Splice(start: frame, end: rejoined.at, shift: rejoined.shift, from: frame + offset))
            offset += rejoined.shift
            frame = rejoined.at
        }
        return found
    }

    /// One channel of interleaved stereo.
    func channel(_ samples: [Float], _ index: Int) -> SignalAnalysis {
        SignalAnalysis(samples: stride(from: index, to: samples.count, by: 2).map { samples[$0] }, rate: Double(Self.rate))
    }

    struct Clicks {
        var splices: [Splice]
        /// The largest third difference at any splice (three frames either side included), both channels.
        var atSplices: Float
        /// The signal's own largest, anywhere.
        var own: Float
        /// The largest ratio of a splice's third difference to the signal's own over the same stretch of
        /// input (the splice and 256 frames either side).
        var worstLocalRatio: Float
        /// The signal's mean |slope| (frame to frame, both channels) where the splices were placed, over its
        /// mean everywhere: below 1, they found the quieter places.
        var slopeAtSplices: Double
    }

    func clicks(correction: Double, spliceFrames: Int = 256, searchFrames: Int = 1024) throws -> Clicks {
        let input = Self.music
        let output = stuffed(input, correction: correction, spliceFrames: spliceFrames, searchFrames: searchFrames)
        let found = try XCTUnwrap(splices(in: output, of: input))
        XCTAssertEqual(output.count / 2, input.count / 2 - found.reduce(0) { $0 + $1.shift }, "one frame a splice, no other")
        let outputs = [channel(output, 0), channel(output, 1)]
        let inputs = [channel(input, 0), channel(input, 1)]
        var result = Clicks(splices: found, atSplices: 0, own: 0, worstLocalRatio: 0, slopeAtSplices: 0)
        func slope(_ frames: Range<Int>) -> Double {
            frames.reduce(0.0) { sum, frame in
                sum + Double(abs(input[2 * frame + 2] - input[2 * frame]) + abs(input[2 * frame + 3] - input[2 * frame + 1]))
            } / Double(frames.count)
        }
        result.slopeAtSplices = found.reduce(0.0) { $0 + slope($1.from..<($1.from + spliceFrames + 1)) } / Double(found.count)
            / slope(0..<(input.count / 2 - 1))
        for side in 0..<2 {
            result.own = max(result.own, inputs[side].largestThirdDifference().value)
            for splice in found {
                let click = outputs[side].largestThirdDifference(in: (splice.start - 3)..<(splice.end + 3)).value
                let around = (splice.from - 256)..<(splice.from + splice.end - splice.start + 256)
                let local = inputs[side].largestThirdDifference(in: max(3, around.lowerBound)..<min(input.count / 2, around.upperBound)).value
                result.atSplices = max(result.atSplices, click)
                result.worstLocalRatio = max(result.worstLocalRatio, click / local)
            }
        }
        return result
    }

    func testStuffedAtFiveHundredPpmEachWayTheSplicesLeaveNoClickAboveTheSignalsOwn() throws {
        for ppm in [500.0, -500] {
            let correction = ppm * 1e-6
            let run = try clicks(correction: correction)
            // A frame in plays as 1 / (1 + correction) frames out: 20 s at 44.1 kHz owes 441 frames, less the
            // 0.65 owed by the frames held back at the end, which play as they are.
            let held = FrameStuffer(maxInputFrames: 1024).lookahead
            let expected = Double(Self.music.count / 2 - held) * correction / (1 + correction)
            print("stuffed at \(ppm) ppm: \(run.splices.count) splices (expected \(expected)), largest third difference "
                  + "at a splice \(run.atSplices), the signal's own \(run.own); worst against the signal's own around "
                  + "it \(run.worstLocalRatio)×; the signal's slope where they are \(run.slopeAtSplices)× its mean")
            // The last whole frame owed may still be on its way to the quietest place.
            XCTAssertTrue((Int(expected.magnitude) - 1...Int(expected.magnitude)).contains(run.splices.count),
                          "\(ppm) ppm: as many splices as the correction owes")
            XCTAssertTrue(run.splices.allSatisfy { $0.shift == (ppm > 0 ? 1 : -1) }, "\(ppm) ppm: each deletes (inserts) one frame")
            XCTAssertTrue(run.splices.allSatisfy { $0.end - $0.start <= 257 }, "\(ppm) ppm: each within its 256-frame splice")
            XCTAssertLessThanOrEqual(run.atSplices, run.own, "\(ppm) ppm: no click above the signal's own level")
            XCTAssertLessThan(run.worstLocalRatio, 1.05, "\(ppm) ppm: nor above the signal's own around it")
            XCTAssertLessThan(run.slopeAtSplices, 0.8, "\(ppm) ppm: placed where the signal is quiet")
        }
    }

    /// The same signal with the frame cut or added in one step (a one-frame splice) wherever it falls due: clicks
    /// many times the signal's own. The test above can fail.
    func testAOneFrameJoinWouldClick() throws {
        let run = try clicks(correction: 500e-6, spliceFrames: 1, searchFrames: 1)
        print("one-frame joins at 500 ppm: largest third difference \(run.atSplices), the signal's own \(run.own); "
              + "\(run.worstLocalRatio)× the signal's own around it; the signal's slope where they are \(run.slopeAtSplices)× its mean")
        XCTAssertGreaterThan(run.atSplices, 2 * run.own)
    }

    func testAtNoCorrectionTheStuffedStreamIsTheInputBitForBit() {
        let input = Array(Self.music.prefix(2 * 5 * Self.rate))
        XCTAssertTrue(stuffed(input, correction: 0) == input, "the stuffer alone")

        // A real stream voice, stuffing, its drift loop held at 0: 0.2 s arrive per pass and are decoded, then the
        // server ends the stream; everything sent reaches the ring unchanged, the held frames at the end too.
        var still = DriftController.Tuning()
        still.limit = 0
        let source = ServerSignal(rate: Self.rate, signal: input)
        let voice = try? StreamVoice(url: "exact", decoder: source, mixRate: Self.rate, ringSeconds: 10, rebufferSeconds: 2,
                                     drift: still, clockHold: .stuff)
        guard let voice else { return XCTFail("no voice") }
        var played: [Float] = []
        let pass = Self.rate / 5
        for step in 1...25 {
            source.sent = Int64(step * pass)
            source.ended = step == 25
            voice.fill()
            voice.holdLevel(at: Double(step) / 5)
            _ = voice.ring.consume(frames: voice.ring.availableToRead) { samples, frames, _ in
                played += UnsafeBufferPointer(start: samples, count: 2 * frames)
            }
        }
        voice.fill()
        _ = voice.ring.consume(frames: voice.ring.availableToRead) { samples, frames, _ in
            played += UnsafeBufferPointer(start: samples, count: 2 * frames)
        }
        XCTAssertEqual(voice.drift.correction, 0)
        XCTAssertTrue(voice.isPlayedOut)
        XCTAssertEqual(played.count, input.count)
        XCTAssertTrue(played == input, "through the stream voice")
    }

    /// However the input is cut into calls, the output is the input bit for bit but at its splices, one frame
    /// each, as many as owed: a call without a splice hands out the held frames themselves, one with a splice
    /// its own buffer, and what is held moves back to the start now and then.
    func testHoweverTheInputIsCutIntoCallsTheOutputIsTheInputAndItsSplices() throws {
        let input = Array(Self.music.prefix(2 * 5 * Self.rate))
        let held = FrameStuffer(maxInputFrames: 1024).lookahead
        for correction in [0.0015, -0.0015] {
            for chunks in [[1], [7, 1024, 300], [1000, 24, 1024, 513]] {
                let output = stuffed(input, correction: correction, chunks: chunks)
                let found = try XCTUnwrap(splices(in: output, of: input), "calls of \(chunks)")
                XCTAssertEqual(output.count / 2, input.count / 2 - found.reduce(0) { $0 + $1.shift }, "calls of \(chunks)")
                let owed = Double(input.count / 2 - held) * correction / (1 + correction)
                XCTAssertTrue((Int(owed.magnitude) - 1...Int(owed.magnitude)).contains(found.count), "calls of \(chunks): \(found.count), \(owed) owed")
                XCTAssertTrue(found.allSatisfy { $0.shift == (correction > 0 ? 1 : -1) && $0.end - $0.start <= 257 }, "calls of \(chunks)")
            }
        }
    }
}
