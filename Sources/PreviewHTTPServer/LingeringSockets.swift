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
///
/// `adopt` runs on MHD's I/O threads and must never wait for a drain: it only appends to a
/// hand-off list under a lock that no read is made under. The sockets being drained belong to
/// one draining thread, which alternates `drain` and `waitForData`; each pass checks every
/// deadline first and then reads at most `readPerPass` bytes from each socket, so one busy
/// sender neither lengthens a pass nor delays another socket's deadline.
final class LingeringSockets: Sendable {
    static let maxSockets = 256
    static let maxNanoseconds: Int64 = 5_000_000_000
    static let maxBytes = 64 << 20
    /// At most this much is read from one socket in one pass (the scratch buffer's size).
    static let readPerPass = 64 << 10

    /// What one non-blocking read found.
    enum Received: Equatable {
        case bytes(Int)
        /// Nothing to read now.
        case nothing
        /// The peer closed, or the socket failed.
        case ended
    }

    /// Reads and drops up to `count` bytes from a socket into the scratch buffer.
    typealias Receive = @Sendable (_ socket: Int32, _ scratch: UnsafeMutableRawBufferPointer) -> Received

    private struct Entry {
        var socket: Int32
        var deadline: Int64
        var bytesLeft: Int
    }

    /// Sockets handed over by `adopt` and not yet taken by a drain pass. Held only to append
    /// or to swap the list out: never across a read.
    private let handedOver = Mutex<[Entry]>([])
    /// Sockets being drained; only `drain` and `closeAll` use them.
    private let draining = Mutex<[Entry]>([])
    /// Sockets held in both lists, so `adopt` keeps to `maxSockets` without the drain's lock.
    private let held = Atomic<Int>(0)
    private let receive: Receive

    /// `receive` is the non-blocking read; tests replace it to stall a drain pass.
    init(receive: @escaping Receive = LingeringSockets.receiveNow) {
        self.receive = receive
    }

    /// Takes ownership of `socket`, a duplicate of a connection's descriptor whose answer has
    /// been sent in full: shuts its sending side and drains it from now on.
    func adopt(_ socket: Int32, now: Int64) {
        // Fails only if the peer has gone already; draining then ends at the first read.
        _ = shutdown(socket, Int32(SHUT_WR))
        guard reserveSlot() else {
            _ = close(socket)  // ignored result: nothing to do about a failed close
            return
        }
        let entry = Entry(socket: socket, deadline: now + Self.maxNanoseconds, bytesLeft: Self.maxBytes)
        handedOver.withLock { $0.append(entry) }
    }

    /// Sockets held now, being drained or waiting for the next pass.
    var count: Int { held.load(ordering: .relaxed) }

    /// One pass: closes the sockets past their deadline, then reads at most `readPerPass` bytes
    /// from each of the others and closes those whose peer closed, that failed, or that used up
    /// their byte budget. Never blocks on a socket (reads are non-blocking).
    func drain(now: Int64) {
        let arrived = handedOver.withLock { list -> [Entry] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        var scratch = [UInt8](repeating: 0, count: Self.readPerPass)
        draining.withLock { entries in
            entries.append(contentsOf: arrived)
            var kept: [Entry] = []
            kept.reserveCapacity(entries.count)
            for var entry in entries {
                if now >= entry.deadline || !drainOnce(&entry, scratch: &scratch) {
                    release(entry.socket)
                } else {
                    kept.append(entry)
                }
            }
            entries = kept
        }
    }

    /// Waits up to `milliseconds` for data or a close on a socket being drained (a socket
    /// handed over meanwhile waits for the next pass). Call on the draining thread only, which
    /// alone closes those sockets, so none is closed while polled.
    func waitForData(milliseconds: Int32) {
        var polled = draining.withLock { entries in
            entries.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
        }
        // Its result is not needed: the next pass reads whatever is ready, and an interrupted
        // or failed wait only makes that pass come sooner.
        _ = poll(&polled, nfds_t(polled.count), milliseconds)
    }

    /// Closes every socket (the server is stopping).
    func closeAll() {
        let arrived = handedOver.withLock { list -> [Entry] in
            defer { list.removeAll() }
            return list
        }
        draining.withLock { entries in
            for entry in entries + arrived { release(entry.socket) }
            entries.removeAll()
        }
    }

    /// The read `init` uses unless told otherwise: `recv` with `MSG_DONTWAIT`.
    static let receiveNow: Receive = { socket, scratch in
        let received = recv(socket, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT))
        if received > 0 { return .bytes(received) }
        if received < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .nothing }
        return .ended
    }

    /// One bounded read; false when the entry is done with.
    private func drainOnce(_ entry: inout Entry, scratch: inout [UInt8]) -> Bool {
        let want = min(scratch.count, entry.bytesLeft)
        let result = scratch.withUnsafeMutableBytes { buffer in
            receive(entry.socket, UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]))
        }
        switch result {
        case .bytes(let count):
            entry.bytesLeft -= count
            return entry.bytesLeft > 0
        case .nothing:
            return true
        case .ended:
            return false
        }
    }

    private func reserveSlot() -> Bool {
        var current = held.load(ordering: .relaxed)
        while current < Self.maxSockets {
            let (exchanged, original) = held.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    private func release(_ socket: Int32) {
        _ = close(socket)  // ignored result: nothing to do about a failed close
        held.subtract(1, ordering: .relaxed)
    }
}
