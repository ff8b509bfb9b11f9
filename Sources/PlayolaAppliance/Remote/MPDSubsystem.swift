import PlayolaControl

/// MPD's `idle` subsystems (`src/protocol/IdleFlags.cxx`, in its order): all are accepted, as MPD accepts
/// them; the ones a radio has fire from the status feed's changes (`init(changes:)`), the others never do.
enum MPDSubsystem: String, CaseIterable, Sendable {
    case database, storedPlaylist = "stored_playlist", playlist, player, mixer, output, options, sticker, update,
         subscription, message, neighbor, mount, partition

    /// The subsystems a change of the service's status is: the state, the station and what plays are `player`
    /// (MPD: started, stopped, or the playing song's tags changed, as a stream's title does); the volume is
    /// `mixer`; the spins coming up are the queue, `playlist`; the device is the one `output`.
    static func of(_ aspects: [StatusAspect]) -> Set<MPDSubsystem> {
        var subsystems: Set<MPDSubsystem> = []
        for aspect in aspects {
            switch aspect {
            case .state, .station, .spin: subsystems.insert(.player)
            case .volume: subsystems.insert(.mixer)
            case .queue: subsystems.insert(.playlist)
            case .device: subsystems.insert(.output)
            case .network: break
            }
        }
        return subsystems
    }
}
