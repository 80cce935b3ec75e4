import Glibc
import Synchronization

/// One connection's socket and the moment by which it must have made progress.
///
/// Sendable: the socket never changes and the deadline is atomic, so MHD's threads move it
/// per request without taking the watchdog's lock.
final class ConnectionDeadline: Sendable {
    /// The connection's socket; valid while the connection is in the watchdog's table.
    let socket: Int32
    /// Monotonic nanoseconds (`ConnectionWatchdog.now()`); `Int64.max` means none.
    private let deadline: Atomic<Int64>
    /// Set once a request on this connection has completed: from then on each head is timed
    /// from its request line, while the first one stays timed from connecting.
    private let keptAlive = Atomic<Bool>(false)

    /// Bytes per second a streamed body must average over each window; 0 while none is read.
    private let minimumRate = Atomic<Int64>(0)
    /// Body bytes received since `expectBody(...)`, counted by the connection's I/O thread.
    private let received = Atomic<Int64>(0)
    /// Where the current rate window began (monotonic nanoseconds) and what `received` was then;
    /// moved by the watchdog thread only.
    private let windowStart = Atomic<Int64>(0)
    private let windowStartBytes = Atomic<Int64>(0)
    /// The client address group this connection is counted under (`ConnectionsPerAddress`).
    let addressGroup: AddressGroup
    /// Set when a request admitted with `.openStream` took a stream slot for this connection: it
    /// is then counted there until it closes, no longer among the connections serving requests.
    let holdsStreamSlot = Atomic<Bool>(false)
    /// Run after the watchdog shuts the socket down: a suspended connection (an upload paused
    /// for its writer) notices nothing until it is resumed, so its request is told here.
    private let onExpiry = Mutex<(@Sendable () -> Void)?>(nil)

    init(socket: Int32, deadline: Int64, addressGroup: AddressGroup = .none) {
        self.socket = socket
        self.deadline = Atomic(deadline)
        self.addressGroup = addressGroup
    }

    /// The connection must make its next step by `instant`.
    func set(_ instant: Int64) {
        deadline.store(instant, ordering: .relaxed)
    }

    /// A request line has arrived: on a kept-alive connection the rest of its head is due by
    /// `instant`; the first head of a connection stays due by the deadline set on connecting, so
    /// sending the request line late does not buy a second header timeout.
    func requestLineArrived(headDueBy instant: Int64) {
        if keptAlive.load(ordering: .relaxed) { set(instant) }
    }

    /// A request has completed: the kept-alive connection must send its next request line by
    /// `instant`.
    func requestCompleted(idleUntil instant: Int64) {
        keptAlive.store(true, ordering: .relaxed)
        minimumRate.store(0, ordering: .relaxed)
        set(instant)
    }

    /// The connection is being served: the server, not the client, owes the next step.
    func clear() {
        minimumRate.store(0, ordering: .relaxed)
        deadline.store(.max, ordering: .relaxed)
    }

    /// A streamed body is being read from `now` on: it must average at least `bytesPerSecond`
    /// over every window the watchdog measures, or the connection is closed. No absolute
    /// deadline: a large upload on a good link takes as long as it takes.
    func expectBody(minimumBytesPerSecond bytesPerSecond: Int64, now: Int64) {
        deadline.store(.max, ordering: .relaxed)
        received.store(0, ordering: .relaxed)
        windowStartBytes.store(0, ordering: .relaxed)
        windowStart.store(now, ordering: .relaxed)
        minimumRate.store(bytesPerSecond, ordering: .releasing)
    }

    /// What to run when the watchdog closes this connection (nil: nothing); set per request.
    func whenExpired(_ action: (@Sendable () -> Void)?) {
        onExpiry.withLock { $0 = action }
    }

    fileprivate func expired() {
        onExpiry.withLock { $0 }?()
    }

    /// `count` more body bytes arrived.
    func bodyReceived(_ count: Int) {
        received.add(Int64(count), ordering: .relaxed)
    }

    fileprivate func isPast(_ now: Int64) -> Bool {
        deadline.load(ordering: .relaxed) <= now
    }

    /// true when a full window of a streamed body has passed below the minimum rate; otherwise
    /// starts the next window once one is complete. Watchdog thread only.
    fileprivate func isTooSlow(_ now: Int64, window: Int64) -> Bool {
        let rate = minimumRate.load(ordering: .acquiring)
        guard rate > 0 else { return false }
        let start = windowStart.load(ordering: .relaxed)
        let elapsed = now - start
        guard elapsed >= window else { return false }
        let bytes = received.load(ordering: .relaxed)
        let inWindow = bytes - windowStartBytes.load(ordering: .relaxed)
        // inWindow bytes over elapsed nanoseconds, against bytes per second (no Int64 overflow).
        if Double(inWindow) * 1e9 < Double(rate) * Double(elapsed) {
            return true
        }
        windowStartBytes.store(bytes, ordering: .relaxed)
        windowStart.store(now, ordering: .relaxed)
        return false
    }
}

/// Enforces absolute deadlines and minimum body rates that libmicrohttpd 0.9.75 lacks: it only
/// has an inactivity timeout, which a client sending one byte every few seconds never trips. A
/// thread wakes every `tickMicroseconds` and shuts down (`SHUT_RDWR`) the socket of each
/// connection past its deadline or below its rate; MHD then sees the connection end and closes
/// it itself.
///
/// Race-free against descriptor reuse: MHD reports a connection closed (`forget`) before it
/// closes the socket, and `forget` and the shutdowns hold the same lock, so a socket is only
/// ever shut down while it still belongs to its connection.
final class ConnectionWatchdog: Sendable {
    /// How often deadlines are checked: a connection is closed at most this late.
    static let tickMicroseconds: UInt32 = 100_000

    private let connections = Mutex<[ObjectIdentifier: ConnectionDeadline]>([:])
    /// Refused connections closing gracefully, drained on a thread of their own so that no
    /// amount of draining delays a deadline.
    let lingering = LingeringSockets()
    private let stopping = Atomic<Bool>(false)
    private let threads = Mutex<[pthread_t]>([])
    /// Nanoseconds over which a streamed body's rate is averaged.
    private let rateWindow: Int64

    /// Starts the watchdog and drain threads; nil if the system refuses to create them.
    /// A streamed body's rate is averaged over windows of `rateWindowSeconds`.
    init?(rateWindowSeconds: Int64 = 30) {
        rateWindow = rateWindowSeconds * 1_000_000_000
        guard spawn(runWatchdog), spawn(runDrain) else {
            stop()
            return nil
        }
    }

    private func spawn(
        _ entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    ) -> Bool {
        var created = pthread_t()
        let retained = Unmanaged.passRetained(self)
        guard pthread_create(&created, nil, entry, retained.toOpaque()) == 0 else {
            retained.release()
            return false
        }
        threads.withLock { $0.append(created) }
        return true
    }

    /// Monotonic nanoseconds, the clock deadlines are measured on.
    static func now() -> Int64 {
        var time = timespec()
        // CLOCK_MONOTONIC always exists on Linux and the pointer is valid: it cannot fail.
        _ = clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Deadline `seconds` from now.
    static func after(seconds: Int64) -> Int64 {
        now() + seconds * 1_000_000_000
    }

    func watch(_ connection: ConnectionDeadline) {
        connections.withLock { $0[ObjectIdentifier(connection)] = connection }
    }

    /// Must be called before the connection's socket is closed.
    func forget(_ connection: ConnectionDeadline) {
        connections.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Stops and joins the threads. Idempotent.
    func stop() {
        stopping.store(true, ordering: .releasing)
        let joining = threads.withLock { threads -> [pthread_t] in
            defer { threads = [] }
            return threads
        }
        for thread in joining {
            _ = pthread_join(thread, nil)  // fails only for a bad id; ours are joinable
        }
        lingering.closeAll()
    }

    fileprivate func run() {
        while !stopping.load(ordering: .acquiring) {
            sweep(now: Self.now())
            usleep(Self.tickMicroseconds)
        }
    }

    fileprivate func drainLingering() {
        while !stopping.load(ordering: .acquiring) {
            lingering.drain(now: Self.now())
            lingering.waitForData(milliseconds: Int32(Self.tickMicroseconds / 1000))
        }
    }

    private func sweep(now: Int64) {
        let closed = connections.withLock { connections -> [ConnectionDeadline] in
            var closed: [ConnectionDeadline] = []
            for connection in connections.values
            where connection.isPast(now) || connection.isTooSlow(now, window: rateWindow) {
                connection.clear()
                // Fails only if the peer has already gone, which MHD notices either way.
                _ = shutdown(connection.socket, Int32(SHUT_RDWR))
                closed.append(connection)
            }
            return closed
        }
        // Outside the lock: an expiry action resumes a connection, which takes MHD's locks.
        for connection in closed { connection.expired() }
    }
}

/// pthread entry point: a file-scope function, as a closure here may not be a C pointer.
private func runWatchdog(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    Unmanaged<ConnectionWatchdog>.fromOpaque(argument).takeRetainedValue().run()
    return nil
}

/// pthread entry point of the lingering-close drain.
private func runDrain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    Unmanaged<ConnectionWatchdog>.fromOpaque(argument).takeRetainedValue().drainLingering()
    return nil
}
