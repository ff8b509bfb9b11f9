import FoundationEssentials
import PlayolaModel

/// A line of "what played when".
public struct PlayEvent: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Frame 0 of the file was heard.
        case start
        /// The file was joined mid-way (playback began after its airtime).
        case join
        /// The file's last sample was heard.
        case end
        /// The spin could not be played (or stopped early); its window is silence.
        case error
    }

    public var time: Date
    public var kind: Kind
    public var spin: Spin
    /// Seconds into the file (join, end) or what went wrong (error).
    public var detail: String

    public var description: String {
        let block = spin.audioBlock
        let by = block.artist.isEmpty ? "" : " by \(block.artist)"
        return "\(PlayolaDate.format(time)) \(kind.rawValue.padding(5)) \(spin.id) \"\(block.title)\"\(by)"
            + (detail.isEmpty ? "" : " — \(detail)")
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
