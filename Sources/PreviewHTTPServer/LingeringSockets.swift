import Glibc
import Synchronization

/// Sockets closed gracefully after a refusal sent before the request body was read.
///
/// Closing a socket while the peer's body is still arriving makes the kernel answer with a
/// reset, and a reset can discard the answer the peer has not read yet: a proxy streaming the
/// body (nginx) then gets a broken pipe and answers 502 instead of the refusal. So the socket is
/// kept (a duplicate of MHD's descriptor, taken before MHD closes its own), its sending side is
/// shut (the answer is complete), and what arrives is read and dropped until the peer closes,
/// for at most `maxNanoseconds` and `maxBytes`; then it is closed. This is the lingering close
/// of nginx and Apache, bounded the same way, so a client cannot hold the socket longer by
/// sending more. Past `maxSockets` at once, a socket is closed at once, as before.
final class LingeringSockets: Sendable {
    static let maxSockets = 256
    static let maxNanoseconds: Int64 = 5_000_000_000
    static let maxBytes = 64 << 20

    private struct Entry {
        var socket: Int32
        var deadline: Int64
        var bytesLeft: Int
    }

    private let entries = Mutex<[Entry]>([])

    init() {}

    /// Takes ownership of `socket`, a duplicate of a connection's descriptor whose answer has
    /// been sent in full: shuts its sending side and drains it from now on.
    func adopt(_ socket: Int32, now: Int64) {
        // Fails only if the peer has gone already; draining then ends at the first read.
        _ = shutdown(socket, Int32(SHUT_WR))
        let adopted = entries.withLock { entries -> Bool in
            guard entries.count < Self.maxSockets else { return false }
            entries.append(Entry(socket: socket, deadline: now + Self.maxNanoseconds, bytesLeft: Self.maxBytes))
            return true
        }
        if !adopted { _ = close(socket) }  // ignored result: nothing to do about a failed close
    }

    /// Reads and drops what has arrived on every socket; closes those whose peer closed, that
    /// failed, or that are past their time or byte budget. Never blocks.
    func drain(now: Int64) {
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        entries.withLock { entries in
            var kept: [Entry] = []
            for var entry in entries {
                if Self.drainOne(&entry, now: now, scratch: &scratch) {
                    _ = close(entry.socket)  // ignored result: nothing to do about a failed close
                } else {
                    kept.append(entry)
                }
            }
            entries = kept
        }
    }

    /// Closes every socket (the server is stopping).
    func closeAll() {
        entries.withLock { entries in
            for entry in entries { _ = close(entry.socket) }  // ignored result: nothing to do about a failed close
            entries.removeAll()
        }
    }

    /// true when the entry is done with.
    private static func drainOne(_ entry: inout Entry, now: Int64, scratch: inout [UInt8]) -> Bool {
        while entry.bytesLeft > 0 {
            let received = scratch.withUnsafeMutableBytes { buffer in
                recv(entry.socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            }
            if received > 0 {
                entry.bytesLeft -= received
                continue
            }
            if received < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                return now >= entry.deadline
            }
            return true  // 0: the peer closed; else an error
        }
        return true
    }
}
