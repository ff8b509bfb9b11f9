/// What movie fragments may still describe: the runs and samples of one fragment (a file's `moof`, all of an
/// HLS segment's), and the bytes of the samples, which lie each in bytes of its own, so that together they
/// fit in the bytes present. A `trun` states its count in 4 bytes and may point every run at the same bytes:
/// without a budget, a small file drives the sample loop for hours or lists gigabytes of samples.
struct MP4FragmentBudget {
    private(set) var runs = DecodeLimits.maxFragmentRuns
    private(set) var samples = DecodeLimits.maxFragmentSamples
    private(set) var bytes: Int
    /// The size of the file or the segment the samples lie in.
    let present: Int

    /// `bytes`: what samples before have not taken of the `present` bytes.
    init(bytes: Int, of present: Int) {
        self.bytes = bytes
        self.present = present
    }

    mutating func takeRun() throws(MP4FieldError) {
        guard runs > 0 else {
            throw MP4FieldError(field: "traf", problem: "more than \(DecodeLimits.maxFragmentRuns) trun boxes in one fragment")
        }
        runs -= 1
    }

    mutating func takeSamples(_ count: Int) throws(MP4FieldError) {
        guard count <= samples else {
            throw MP4FieldError(field: "trun", problem: "\(count) samples, past the \(DecodeLimits.maxFragmentSamples) one fragment may hold")
        }
        samples -= count
    }

    mutating func takeBytes(_ count: Int) throws(MP4FieldError) {
        guard count <= bytes else {
            throw MP4FieldError(field: "trun", problem: "its samples' sizes add up past the \(present) bytes there are (each sample has bytes of its own)")
        }
        bytes -= count
    }
}
