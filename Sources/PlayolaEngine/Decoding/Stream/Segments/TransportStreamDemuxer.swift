/// The audio of MPEG transport stream segments (HLS's `.ts`): the program's first AAC (ADTS) or MPEG audio
/// elementary stream, as the bytes a stream decoder reads, and the titles of its ID3 timed metadata.
///
/// Only what HLS audio needs: the PAT names the PMT, the PMT the audio and metadata PIDs; PES headers are
/// removed and their payloads passed on. Packets lost or garbled cost the frames in them: the ADTS framing
/// and mpg123 resynchronise on their own. State carries from one segment to the next, as PIDs do.
package struct TransportStreamDemuxer {
    /// The audio's format, once a PMT has named it.
    package private(set) var format: StreamFormat?
    private var pmtPID: Int?
    private var audioPID: Int?
    private var metadataPID: Int?
    /// The ID3 PES being gathered (a tag can span packets).
    private var metadata: [UInt8] = []
    private static let packetLength = 188
    /// A metadata PES longer than this is not a title: it is passed over rather than gathered.
    private static let maxMetadataBytes = 64 << 10

    package init() {}

    /// Demultiplexes one segment: its audio bytes go to `audio`, each title to `tags`.
    package mutating func demux(_ segment: [UInt8], audio: (ArraySlice<UInt8>) -> Void, tags: (StreamTags) -> Void) {
        var at = 0
        while at + Self.packetLength <= segment.count {
            guard segment[at] == 0x47 else {
                at += 1  // lost sync: find the next sync byte
                continue
            }
            packet(segment[at..<at + Self.packetLength], audio: audio, tags: tags)
            at += Self.packetLength
        }
        flushMetadata(tags)
    }

    private mutating func packet(_ packet: ArraySlice<UInt8>, audio: (ArraySlice<UInt8>) -> Void, tags: (StreamTags) -> Void) {
        let base = packet.startIndex
        let startsUnit = packet[base + 1] & 0x40 != 0
        let pid = Int(packet[base + 1] & 0x1F) << 8 | Int(packet[base + 2])
        let adaptation = (packet[base + 3] >> 4) & 0x3
        guard adaptation & 0x1 != 0 else { return }  // no payload
        var payloadStart = base + 4
        if adaptation & 0x2 != 0 { payloadStart += 1 + Int(packet[base + 4]) }
        guard payloadStart < packet.endIndex else { return }
        let payload = packet[payloadStart...]
        switch pid {
        case 0 where startsUnit: readPAT(payload)
        case pmtPID where startsUnit: readPMT(payload)
        case audioPID: if let data = pesData(payload, startsUnit: startsUnit) { audio(data) }
        case metadataPID:
            if startsUnit { flushMetadata(tags) }
            if let data = pesData(payload, startsUnit: startsUnit), metadata.count + data.count <= Self.maxMetadataBytes {
                metadata += data
            }
        default: break
        }
    }

    /// A PSI section's bytes after its pointer field, and the section's length-bounded body.
    private func section(_ payload: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let pointer = Int(payload[payload.startIndex])
        let start = payload.startIndex + 1 + pointer
        guard start + 3 <= payload.endIndex else { return nil }
        let length = Int(payload[start + 1] & 0x0F) << 8 | Int(payload[start + 2])
        // The body runs to before the CRC; a section longer than the packet is read as far as it goes.
        let end = min(payload.endIndex, start + 3 + length - 4)
        return end > start + 8 ? payload[start..<end] : nil
    }

    private mutating func readPAT(_ payload: ArraySlice<UInt8>) {
        guard let section = section(payload) else { return }
        var at = section.startIndex + 8
        while at + 4 <= section.endIndex {
            let program = Int(section[at]) << 8 | Int(section[at + 1])
            if program != 0 {  // program 0 names the network PID
                pmtPID = Int(section[at + 2] & 0x1F) << 8 | Int(section[at + 3])
                return
            }
            at += 4
        }
    }

    private mutating func readPMT(_ payload: ArraySlice<UInt8>) {
        guard let section = section(payload), section.count >= 12 else { return }
        let programInfoLength = Int(section[section.startIndex + 10] & 0x0F) << 8 | Int(section[section.startIndex + 11])
        var at = section.startIndex + 12 + programInfoLength
        var foundAudio: (pid: Int, format: StreamFormat)?
        var foundMetadata: Int?
        while at + 5 <= section.endIndex {
            let streamType = section[at]
            let pid = Int(section[at + 1] & 0x1F) << 8 | Int(section[at + 2])
            let infoLength = Int(section[at + 3] & 0x0F) << 8 | Int(section[at + 4])
            switch streamType {
            case 0x0F where foundAudio == nil: foundAudio = (pid, .aac)
            case 0x03, 0x04: if foundAudio == nil { foundAudio = (pid, .mp3) }
            case 0x15: foundMetadata = pid
            default: break
            }
            at += 5 + infoLength
        }
        if let foundAudio {
            audioPID = foundAudio.pid
            format = foundAudio.format
        }
        metadataPID = foundMetadata
    }

    /// A PES packet's payload: at the start of a unit, after its header; else the packet's payload as it is.
    private func pesData(_ payload: ArraySlice<UInt8>, startsUnit: Bool) -> ArraySlice<UInt8>? {
        guard startsUnit else { return payload }
        let start = payload.startIndex
        guard payload.count >= 9, payload[start] == 0, payload[start + 1] == 0, payload[start + 2] == 1 else { return nil }
        let dataStart = start + 9 + Int(payload[start + 8])
        return dataStart <= payload.endIndex ? payload[dataStart...] : nil
    }

    private mutating func flushMetadata(_ tags: (StreamTags) -> Void) {
        if let found = ID3Tag.tags(in: metadata[...]) { tags(found) }
        metadata.removeAll(keepingCapacity: true)
    }
}
