import FoundationEssentials

/// One scheduled play of an audio block: frame 0 of the file is heard at `airtime`.
public struct Spin: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var stationID: String
    public var airtime: Date
    public var startingVolume: Float
    /// Sorted by `atMS`: the server does not guarantee the order.
    public var fades: [Fade]
    public var audioBlock: AudioBlock

    enum CodingKeys: String, CodingKey {
        case id, airtime, startingVolume, fades, audioBlock
        case stationID = "stationId"
    }

    public init(
        id: String, stationID: String, airtime: Date, startingVolume: Float, fades: [Fade],
        audioBlock: AudioBlock
    ) {
        self.id = id
        self.stationID = stationID
        self.airtime = airtime
        self.startingVolume = Fade.gain(startingVolume)
        self.fades = fades.sorted { $0.atMS < $1.atMS }
        self.audioBlock = audioBlock
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let airtimeText = try container.decode(String.self, forKey: .airtime)
        guard let airtime = PlayolaDate.parse(airtimeText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .airtime, in: container, debugDescription: "not a date: \"\(airtimeText)\"")
        }
        self.init(
            id: try container.decode(String.self, forKey: .id),
            stationID: try container.decodeIfPresent(String.self, forKey: .stationID) ?? "",
            airtime: airtime,
            startingVolume: try container.gain(.startingVolume),
            fades: try container.decode([Fade].self, forKey: .fades),
            audioBlock: try container.decode(AudioBlock.self, forKey: .audioBlock))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(stationID, forKey: .stationID)
        try container.encode(PlayolaDate.format(airtime), forKey: .airtime)
        try container.encode(startingVolume, forKey: .startingVolume)
        try container.encode(fades, forKey: .fades)
        try container.encode(audioBlock, forKey: .audioBlock)
    }

    /// When the message ends: `airtime + endOfMessageMS` (the file itself may play on under a fade).
    public var endtime: Date { airtime.addingTimeInterval(Double(audioBlock.endOfMessageMS) / 1000) }

    /// The gain envelope of this spin as a function of the position in its file.
    public var envelope: GainEnvelope { GainEnvelope(startingVolume: startingVolume, fades: fades) }

    /// The same spin aired `seconds` later (negative: earlier); used for time-shifted playback.
    public func withOffset(_ seconds: Double) -> Spin {
        var copy = self
        copy.airtime = airtime.addingTimeInterval(seconds)
        return copy
    }
}
