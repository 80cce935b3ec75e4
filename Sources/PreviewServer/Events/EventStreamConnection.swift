import Dispatch
import PreviewCore
import Synchronization

/// One client's `GET /api/feed/events` as the server sends it: events queue here and the HTTP
/// server reads them out as the connection drains; while none wait, the connection is suspended
/// (no thread, no timer). Bounded: a client that does not read gets its connection closed once
/// `maxPendingBytes` wait beyond what its replay still holds, so it never grows memory.
///
/// While its missed events are replayed (`beginReplay`/`endReplay`), live events are held and then
/// sent only when newer than the last replayed one: subscribed before the log is read, a client
/// misses nothing and gets nothing twice. The replay's own bytes are bounded apart, by the
/// `ReplayBudget` they were reserved from, and given back to it as the client reads them.
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
        /// Bytes of the replay not read yet (reserved from `replayBudget`): over the live bound.
        var replayBytesLeft = 0
        /// When bytes were last queued (`now()`), for `heartbeatIfQuiet`.
        var lastQueued = EventStreamConnection.now()
    }

    let maxPendingBytes: Int
    /// This stream's share of the heartbeat period, from 0.5 to 1, drawn once: streams opened or
    /// sent an event together fall out of step, so their heartbeats are spread over half a period.
    private let heartbeatPhase = Double.random(in: 0.5...1)
    private let state = Mutex(State())
    private let onClosed: @Sendable (EventStreamConnection) -> Void
    /// Where a replay's bytes are reserved (by `FeedEvents`) and given back as they are read.
    private let replayBudget: ReplayBudget?

    init(
        maxPendingBytes: Int, replayBudget: ReplayBudget? = nil,
        onClosed: @escaping @Sendable (EventStreamConnection) -> Void
    ) {
        self.maxPendingBytes = maxPendingBytes
        self.replayBudget = replayBudget
        self.onClosed = onClosed
    }

    /// Queues bytes that are not an event (the opening, heartbeats). False when the stream is
    /// over (closed, ended, or failed now for being over its bound).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in enqueue(bytes, into: &state) }
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
            return enqueue(bytes, into: &state)
        }
    }

    /// Queues a heartbeat comment when nothing was queued for this stream's share of
    /// `periodMilliseconds`; false when it did not.
    @discardableResult
    func heartbeatIfQuiet(now: Int64, periodMilliseconds: Int64) -> Bool {
        let quiet = Int64(Double(periodMilliseconds) * heartbeatPhase)
        return state.withLock { state in
            guard now - state.lastQueued >= quiet else { return false }
            return enqueue(ServerSentEvents.heartbeat, into: &state)
        }
    }

    /// Monotonic milliseconds, the clock of `heartbeatIfQuiet`.
    static func now() -> Int64 {
        Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000)
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
    /// `reserved`: the replay's bytes, reserved from the replay budget, which the live bound does
    /// not count until they are read.
    func endReplay(_ replayed: [(FeedEventID, [UInt8])], reset: Bool = false, reserved: Int = 0) {
        state.withLock { state in
            state.replaying = false
            if reset { state.newest = .zero }
            guard !state.closed, !state.failed, !state.ended else {
                if reserved > 0 { replayBudget?.release(reserved) }
                return
            }
            state.replayBytesLeft += reserved
            for (id, bytes) in replayed + state.held where id > state.newest {
                state.newest = id
                guard enqueue(bytes, into: &state) else { break }
            }
            state.held = []
        }
    }

    private func enqueue(_ bytes: [UInt8], into state: inout State) -> Bool {
        guard !state.closed, !state.ended, !state.failed else { return false }
        state.lastQueued = Self.now()
        if state.pendingBytes + bytes.count > maxPendingBytes + state.replayBytesLeft {
            // It does not read: drop what waits and cut the connection off now (MHD would never ask
            // this stream for bytes again while the socket stays full).
            state.failed = true
            dropPending(&state)
            state.abort?()
        } else {
            state.chunks.append(bytes)
            state.pendingBytes += bytes.count
        }
        Self.wakeIfWaiting(&state)
        return !state.failed
    }

    /// Drops what waits, giving the replay's bytes not read back to the budget.
    private func dropPending(_ state: inout State) {
        state.chunks = []
        state.held = []
        state.head = 0
        state.offset = 0
        state.pendingBytes = 0
        if state.replayBytesLeft > 0 { replayBudget?.release(state.replayBytesLeft) }
        state.replayBytesLeft = 0
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

    package func read(into buffer: UnsafeMutableRawBufferPointer, suspend: () -> Void) -> ResponseStreamRead {
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
            // The replay was queued first (after the opening): what is read comes out of it first.
            let replayRead = min(copied, state.replayBytesLeft)
            state.replayBytesLeft -= replayRead
            if replayRead > 0 { replayBudget?.release(replayRead) }
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

    /// The client left: the stream ends as it would at a stop (MHD then closes the connection
    /// without logging an error, as it would for a failed one), with nothing left to send.
    func hangUp() {
        state.withLock { state in
            guard !state.closed, !state.failed else { return }
            state.ended = true
            dropPending(&state)
            Self.wakeIfWaiting(&state)
        }
    }

    func closed() {
        state.withLock { state in
            state.closed = true
            state.wake = nil
            state.abort = nil
            dropPending(&state)
        }
        onClosed(self)
    }

    /// Bytes waiting to be sent, for tests.
    var pendingBytes: Int { state.withLock { $0.pendingBytes } }
    var hasFailed: Bool { state.withLock { $0.failed } }
}

/// The bytes of replays queued on this process's event streams and not read yet, against a
/// bound: a resuming client may get more than the live bound at once (a thousand events), and
/// this keeps many resuming clients that do not read from holding more than the bound in all.
final class ReplayBudget: Sendable {
    let limit: Int
    private let reserved = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// Reserves `bytes`; false (nothing reserved) when that would pass the bound.
    func reserve(_ bytes: Int) -> Bool {
        var current = reserved.load(ordering: .relaxed)
        while current + bytes <= limit {
            let (exchanged, original) = reserved.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func release(_ bytes: Int) {
        reserved.subtract(bytes, ordering: .relaxed)
    }

    /// Bytes reserved now.
    var inUse: Int { reserved.load(ordering: .relaxed) }
}
