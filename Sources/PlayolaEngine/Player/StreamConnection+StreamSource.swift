import PlayolaLive
import PlayolaStreaming
import Synchronization

/// The network's stream connection is what the live engine plays; the conformance is here, where the two
/// meet, so that neither layer knows the other.
extension StreamConnection: StreamSource {
    package var name: String { station.name }
    package var prebufferSeconds: Double { station.prebufferSeconds }
    package var maxBufferSeconds: Double { station.maxBufferSeconds }
    package func markSounding() {
        isSounding.store(true, ordering: .releasing)
        changed()
    }
}
