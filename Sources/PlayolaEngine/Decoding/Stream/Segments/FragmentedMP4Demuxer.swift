/// The audio of fragmented MP4 segments (HLS's fMP4: an init segment with `moov`, then `moof`+`mdat` pairs)
/// as a stream decoder reads it: AAC as ADTS frames, MP3 as its own frames.
///
/// Each AAC sample of the audio track's runs (`traf`/`tfhd`/`trun`) gets the 7-byte ADTS header its
/// AudioSpecificConfig calls for. Every offset, size and count is from outside and checked before use.
package struct FragmentedMP4Demuxer {
    /// Nil for MP3, whose frames carry their own headers.
    private let header: ADTSFramer?
    private let trackID: UInt32
    private let defaults: MP4TrackRun.Defaults

    /// Reads the audio track of `initSegment`; `name` (its URL) is for messages.
    package init(initSegment bytes: [UInt8], name: String) throws(AudioDecoderError) {
        do throws(MP4FieldError) {
            guard let moov = MP4Box.children(of: bytes, from: 0, to: bytes.count).first(where: { $0.type == "moov" }) else {
                throw MP4FieldError(field: "moov", problem: "missing from the init segment")
            }
            let trak = try MP4AudioTrackReader.audioTrack(moov, in: bytes)
            guard let stbl = trak.descendant(["mdia", "minf", "stbl"], in: bytes) else { throw MP4FieldError(field: "stbl", problem: "missing") }
            let id = try MP4AudioTrackReader.trackID(trak, in: bytes)
            trackID = id
            defaults = MP4TrackRun.Defaults(moov: moov, trackID: id, in: bytes)
            let objectType = try MP4AudioTrackReader.objectTypeIndication(stbl: stbl, in: bytes)
            header = objectType == 0x69 || objectType == 0x6B
                ? nil : try ADTSFramer(audioSpecificConfig: try MP4AudioTrackReader.decoderConfig(stbl: stbl, in: bytes))
        } catch {
            throw error.named(name)
        }
    }

    /// The ADTS frames of one media segment's samples, in order; `name` (its URL) is for messages. The
    /// segment's fragments share one budget: it bounds the work and the audio of a segment by its bytes.
    package func demux(_ segment: [UInt8], name: String, audio: (ArraySlice<UInt8>) -> Void) throws(AudioDecoderError) {
        var frame = [UInt8](repeating: 0, count: 7)
        var budget = MP4FragmentBudget(bytes: segment.count, of: segment.count)
        do throws(MP4FieldError) {
            for moof in MP4Box.children(of: segment, from: 0, to: segment.count) where moof.type == "moof" {
                for traf in MP4Box.children(of: segment, from: moof.payloadStart, to: moof.payloadEnd) where traf.type == "traf" {
                    guard let run = try MP4TrackRun(traf: traf, moofStart: moof.payloadStart - 8, trackID: trackID, defaults: defaults,
                                                    dataEnd: segment.count, budget: &budget, in: segment)
                    else { continue }
                    for (offset, size) in run.samples {
                        if let header {
                            guard header.write(frameLength: size, into: &frame) else { continue }
                            audio(frame[...])
                        }
                        audio(segment[offset..<offset + size])
                    }
                }
            }
        } catch {
            throw error.named(name)
        }
    }
}
