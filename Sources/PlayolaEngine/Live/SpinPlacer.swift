import PlayolaDecoding
import PlayolaMixer
import PlayolaModel

/// Where a spin sounds on the mix timeline: its file's frame 0 at `startFrame`, played from `joinFrame`
/// of the file (0 unless it is placed after its airtime and joins mid-file).
package struct SpinPlacement: Sendable, Equatable {
    package var startFrame: Int64
    package var joinFrame: Int64
}

/// Places spins for the live engine and the virtual-time renderer alike: which spins sound in a window of
/// mix frames, from where in their file, and their voices (decoder, seek to the join, gain envelope).
package struct SpinPlacer {
    package let mixRate: Int
    private let openFile: (String) throws(AudioDecoderError) -> any AudioDecoder

    package init(mixRate: Int, openFile: @escaping (String) throws(AudioDecoderError) -> any AudioDecoder) {
        self.mixRate = mixRate
        self.openFile = openFile
    }

    /// The placement of `spin` if any of it sounds in `window` (which begins where playback can still
    /// start: a spin already under way joins there).
    package func place(_ spin: Spin, clock: ProgramClock, window: Range<Int64>) -> SpinPlacement? {
        let start = clock.frame(at: spin.airtime)
        let length = spin.audioBlock.frames(atRate: mixRate)
        guard start < window.upperBound, start + length > window.lowerBound else { return nil }
        return SpinPlacement(startFrame: start, joinFrame: max(0, window.lowerBound - start))
    }

    /// The spin's voice, its decoder positioned at the join.
    package func voice(for spin: Spin, file: String, at placement: SpinPlacement) throws(AudioDecoderError) -> TimelineVoice {
        try TimelineVoice(spin: spin, file: file, decoder: try openFile(file), mixRate: mixRate,
                  startFrame: placement.startFrame, joinFrame: placement.joinFrame)
    }
}
