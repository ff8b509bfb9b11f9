/// MPEG-TS and ID3 bytes made by hand: an HLS segment's packets, for the demuxer's tests.
package enum TransportStreamBytes {
    package static func id3v24(title: String, artist: String) -> [UInt8] {
        func frame(_ id: String, _ text: String) -> [UInt8] {
            let body = [3] + Array(text.utf8)  // UTF-8
            return Array(id.utf8) + [0, 0, 0, UInt8(body.count)] + [0, 0] + body
        }
        let frames = frame("TIT2", title) + frame("TPE1", artist)
        return Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, UInt8(frames.count)] + frames
    }

    /// TS packets of `section` (a PSI table) on `pid`.
    package static func psi(pid: Int, _ section: [UInt8]) -> [UInt8] {
        let packet = [0x47, 0x40 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10, 0] + section + [0, 0, 0, 0]  // pointer, section, CRC
        return packet + [UInt8](repeating: 0xFF, count: 188 - packet.count)
    }

    package static func pat() -> [UInt8] {
        let body: [UInt8] = [0, 1, 0xC1, 0, 0, 0, 1, 0xE1, 0x00]  // id, version, sections; program 1 → PMT 0x100
        return psi(pid: 0, [0x00, 0xB0, UInt8(body.count + 4)] + body)
    }

    package static func pmt(_ streams: [(type: UInt8, pid: Int)]) -> [UInt8] {
        var body: [UInt8] = [0, 1, 0xC1, 0, 0, 0xE1, 0x01, 0xF0, 0]  // program 1, PCR PID, no program info
        for stream in streams { body += [stream.type, 0xE0 | UInt8(stream.pid >> 8), UInt8(stream.pid & 0xFF), 0xF0, 0] }
        return psi(pid: 0x100, [0x02, 0xB0, UInt8(body.count + 4)] + body)
    }

    /// One PES packet of `payload` cut into TS packets, the last padded with an adaptation field.
    package static func pes(pid: Int, streamID: UInt8, payload: [UInt8]) -> [UInt8] {
        var data = [0, 0, 1, streamID, 0, 0, 0x80, 0, 0] + payload
        var packets: [UInt8] = []
        var first = true
        while !data.isEmpty {
            let take = min(184, data.count)
            let stuffing = 184 - take
            var header: [UInt8] = [0x47, (first ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), stuffing > 0 ? 0x30 : 0x10]
            if stuffing > 0 {
                header += [UInt8(stuffing - 1)] + (stuffing > 1 ? [0] + [UInt8](repeating: 0xFF, count: stuffing - 2) : [])
            }
            packets += header + data.prefix(take)
            data.removeFirst(take)
            first = false
        }
        return packets
    }
}
