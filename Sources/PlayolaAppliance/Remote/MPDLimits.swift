
/// What one client of the MPD server may cost, after MPD's own limits (`doc/user.rst`, "Resource
/// Limitations"), smaller where an appliance's memory asks for it.
package struct MPDLimits: Sendable {
    /// Connections at once (MPD: 100). When all are taken, a new one takes the place of the connection that
    /// has been quiet longest and is not waiting in `idle` (MPD refuses the new one): 300 connections that say
    /// nothing cannot lock a phone out.
    package var clients = 100
    /// Bytes of one command line (MPD's input buffer: 16 KiB). A longer one is answered with an ACK and the
    /// connection closed, as MPD closes it; the line is never held whole.
    package var lineBytes = 16 << 10
    /// Bytes of one command list (MPD: 2 MiB); none of ours is longer than a line.
    package var commandListBytes = 64 << 10
    /// Bytes of answers waiting for a client (MPD: 8 MiB): our longest answer is a few KiB, so a client past
    /// this is one that stopped reading while it sent; it is closed. Beyond `pauseReadingAt` nothing more of
    /// what it sends is read, so it cannot make answers pile up to here by itself.
    package var outputBytes = 1 << 20
    package var pauseReadingAt = 64 << 10
    /// Seconds a connection may send nothing (MPD: 60), unless it waits in `idle`; and the seconds a client
    /// that has answers waiting may take none of them.
    package var timeout = 60.0
}
