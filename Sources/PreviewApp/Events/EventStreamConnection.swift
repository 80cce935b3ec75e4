import PreviewCore
import Synchronization

/// One client's `GET /api/feed/events` as the server sends it: events queue here and the HTTP
/// server reads them out as the connection drains; while none wait, the connection is suspended
/// (no thread, no timer). Bounded: a client that does not read gets its connection closed once
/// `maxPendingBytes` wait, so it never grows memory.
///
/// While its missed events are replayed (`beginReplay`/`endReplay`), live events are held and then
/// sent only when newer than the last replayed one: subscribed before the log is read, a client
/// misses nothing and gets nothing twice.
final class EventStreamConnection: ResponseStream {
    private struct State {
        var chunks: [[UInt8]] = []
        /// The first chunk not sent whole, and how much of it is sent.
        var head = 0
        var offset = 0
        var pendingBytes = 0
        var wake: (@Sendable () -> Void)?
        var abort: (@Sendable () -> Void)?
        var waiting = false
        var ended = false
        var failed = false
        var closed = false
        var replaying = false
        var held: [(FeedEventID, [UInt8])] = []
        /// The newest event queued: a live event not newer is one the replay already sent.
        var newest = FeedEventID.zero
    }

    let maxPendingBytes: Int
    private let state = Mutex(State())
    private let onClosed: @Sendable (EventStreamConnection) -> Void

    init(maxPendingBytes: Int, onClosed: @escaping @Sendable (EventStreamConnection) -> Void) {
        self.maxPendingBytes = maxPendingBytes
        self.onClosed = onClosed
    }

    /// Queues bytes that are not an event (the opening, heartbeats). False when the stream is
    /// over (closed, ended, or failed now for being over its bound).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in Self.enqueue(bytes, into: &state, limit: maxPendingBytes) }
    }

    /// Queues a live event unless the replay already sent it; held while a replay runs.
    @discardableResult
    func send(event bytes: [UInt8], id: FeedEventID) -> Bool {
        state.withLock { state in
            if state.replaying {
                state.held.append((id, bytes))
                return !state.closed
            }
            guard id > state.newest else { return !state.closed }
            state.newest = id
            return Self.enqueue(bytes, into: &state, limit: maxPendingBytes)
        }
    }

    /// Holds live events until `endReplay`; none at or before `lastEventID` is sent.
    func beginReplay(after lastEventID: FeedEventID) {
        state.withLock { state in
            state.replaying = true
            state.newest = lastEventID
        }
    }

    /// Queues the replayed events (already rendered, oldest first), then the live ones held
    /// meanwhile that are newer. A `reset` replaces the replay: it is sent whatever its ID.
    func endReplay(_ replayed: [(FeedEventID, [UInt8])], reset: Bool = false) {
        state.withLock { state in
            state.replaying = false
            if reset { state.newest = .zero }
            for (id, bytes) in replayed + state.held where id > state.newest {
                state.newest = id
                guard Self.enqueue(bytes, into: &state, limit: maxPendingBytes) else { break }
            }
            state.held = []
        }
    }

    private static func enqueue(_ bytes: [UInt8], into state: inout State, limit: Int) -> Bool {
        guard !state.closed, !state.ended, !state.failed else { return false }
        if state.pendingBytes + bytes.count > limit {
            // It does not read: drop what waits and cut the connection off now (MHD would never ask
            // this stream for bytes again while the socket stays full).
            state.failed = true
            state.abort?()
            state.chunks = []
            state.head = 0
            state.offset = 0
            state.pendingBytes = 0
        } else {
            state.chunks.append(bytes)
            state.pendingBytes += bytes.count
        }
        wakeIfWaiting(&state)
        return !state.failed
    }

    private static func wakeIfWaiting(_ state: inout State) {
        guard state.waiting, !state.closed else { return }
        state.waiting = false
        state.wake?()
    }

    // MARK: ResponseStream

    func start(wake: @escaping @Sendable () -> Void, abort: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.wake = wake
            state.abort = abort
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, suspend: () -> Void) -> ResponseStreamRead {
        state.withLock { state in
            if state.failed { return .failed }
            guard state.pendingBytes > 0 else {
                if state.ended { return .end }
                state.waiting = true
                suspend()
                return .waiting
            }
            var copied = 0
            while copied < buffer.count, state.head < state.chunks.count {
                let chunk = state.chunks[state.head]
                let count = min(buffer.count - copied, chunk.count - state.offset)
                chunk.withUnsafeBytes { source in
                    let from = UnsafeRawBufferPointer(rebasing: source[state.offset..<(state.offset + count)])
                    UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + count)]).copyMemory(from: from)
                }
                copied += count
                state.offset += count
                if state.offset == chunk.count {
                    state.head += 1
                    state.offset = 0
                }
            }
            state.pendingBytes -= copied
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: state.chunks.count <= 16)
                state.head = 0
            } else if state.head >= 64 {
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            return .bytes(copied)
        }
    }

    func end() {
        state.withLock { state in
            state.ended = true
            Self.wakeIfWaiting(&state)
        }
    }

    func closed() {
        state.withLock { state in
            state.closed = true
            state.wake = nil
            state.abort = nil
            state.chunks = []
            state.held = []
            state.pendingBytes = 0
        }
        onClosed(self)
    }

    /// Bytes waiting to be sent, for tests.
    var pendingBytes: Int { state.withLock { $0.pendingBytes } }
    var hasFailed: Bool { state.withLock { $0.failed } }
}
