import COgg

/// The packets of one logical stream at a time out of an Ogg byte stream, through libogg's sync and stream
/// layers. Bytes are pushed in as they arrive; `next()` says when it needs more.
///
/// Internet radio sends Ogg as a chain: one logical stream per track, each starting with its own headers on
/// a beginning-of-stream (BOS) page. A BOS page after the current stream has carried more than its own BOS
/// page starts the next link, and the reader follows it; BOS pages that come straight after the current
/// one are other streams grouped with it (a video beside the audio) and are passed over, as are pages of a
/// stream whose BOS page was never seen (a join without headers).
final class OggPacketReader {
    enum Next {
        /// `packet` holds the next packet; `startsLogicalStream` on the first packet of a new link.
        case packet(startsLogicalStream: Bool)
        case needBytes
    }

    /// The packet `next()` returned; libogg's memory, valid until the next call.
    let packet = UnsafeMutablePointer<ogg_packet>.allocate(capacity: 1)
    private(set) var pageCount = 0
    private let sync = UnsafeMutablePointer<ogg_sync_state>.allocate(capacity: 1)
    private let stream = UnsafeMutablePointer<ogg_stream_state>.allocate(capacity: 1)
    private let page = UnsafeMutablePointer<ogg_page>.allocate(capacity: 1)
    private var serial: Int32?
    private var pagesOfCurrentStream = 0
    private var startingNewStream = false

    init() {
        ogg_sync_init(sync)
        ogg_stream_init(stream, 0)
    }

    deinit {
        ogg_stream_clear(stream)
        ogg_sync_clear(sync)
        for pointer in [UnsafeMutableRawPointer(packet), UnsafeMutableRawPointer(sync), UnsafeMutableRawPointer(stream), UnsafeMutableRawPointer(page)] {
            pointer.deallocate()
        }
    }

    /// Moves up to `limit` bytes from `read` (which fills the buffer it is given and returns the count)
    /// into libogg; returns how many.
    func write(upTo limit: Int, from read: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        guard let destination = ogg_sync_buffer(sync, limit) else { return 0 }
        let count = read(UnsafeMutableRawBufferPointer(start: destination, count: limit))
        ogg_sync_wrote(sync, count)
        return count
    }

    /// The bytes of the packet still being put together from pages, once `next()` has returned every
    /// whole packet: libogg keeps them for as long as the packet goes on.
    var unfinishedPacketBytes: Int { stream.pointee.body_fill - stream.pointee.body_returned }

    func next() -> Next {
        while true {
            if serial != nil {
                let result = ogg_stream_packetout(stream, packet)
                if result == 1 {
                    defer { startingNewStream = false }
                    return .packet(startsLogicalStream: startingNewStream)
                }
                if result < 0 { continue }  // a gap (lost pages): the packets after it still decode
            }
            let result = ogg_sync_pageout(sync, page)
            if result == 0 { return .needBytes }
            if result < 0 { continue }  // junk, a cut, a join mid-page: libogg skips to the next capture pattern
            pageCount += 1
            take(page)
        }
    }

    private func take(_ page: UnsafeMutablePointer<ogg_page>) {
        let pageSerial = ogg_page_serialno(page)
        if ogg_page_bos(page) != 0 && (serial == nil || (pageSerial != serial && pagesOfCurrentStream > 1)) {
            ogg_stream_reset_serialno(stream, pageSerial)
            serial = pageSerial
            pagesOfCurrentStream = 0
            startingNewStream = true
        }
        guard pageSerial == serial else { return }
        pagesOfCurrentStream += 1
        ogg_stream_pagein(stream, page)
    }
}

extension ogg_packet {
    /// The packet's bytes; empty for a packet libogg gives without data.
    var contents: UnsafeRawBufferPointer {
        guard let packet, bytes > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: packet, count: bytes)
    }
}
