import Glibc
import PreviewCore
import Synchronization

/// A streamed request body between its connection's I/O thread and its sink: the I/O thread
/// copies each chunk into a small buffer and a body-writer thread hands the chunks to the sink
/// in order, so a sink that blocks (a slow disk) holds a writer, never the I/O thread and the
/// other connections it serves.
///
/// When the buffer is full the chunk is not taken and the connection is paused (suspended by
/// the `pause` action, under this body's lock); the writer resumes it once the buffer is half
/// drained, and libmicrohttpd offers the same chunk again. So a body holds at most `capacity`
/// bytes plus the chunk being written, however slow its sink.
///
/// `@unchecked Sendable`: every variable is only touched with `mutex` held.
final class StreamedBody: @unchecked Sendable {
    /// What `offer` did with a chunk.
    enum Offer: Equatable {
        /// Copied: the chunk is consumed.
        case accepted
        /// The buffer is full: the connection was paused and the chunk left for later.
        case paused
        /// The body has failed (sink refused, deadline, server stopping): end the request.
        case refused
    }

    /// Bytes a body may hold waiting for its writer. Large against libmicrohttpd's chunks (at
    /// most the connection's memory, 16 KiB by default) so a short disk hiccup does not pause
    /// the client, small enough that a thousand paused uploads stay within 256 MiB.
    static let capacity = 256 * 1024

    let sink: any HTTPBodySink
    private let writers: ResponderPool
    /// Resumes the paused connection; called once per pause, never under the lock.
    private let resume: @Sendable () -> Void
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let idle: UnsafeMutablePointer<pthread_cond_t>
    private var chunks = JobQueue<[UInt8]>()
    private var buffered = 0
    /// A writer job is queued or running for this body.
    private var writing = false
    /// The connection is suspended until the writer (or `cancel`) resumes it.
    private var paused = false
    private var failed = false
    /// The whole body is in and the responder waits for it to be written: no longer cancelled.
    private var finishing = false
    /// `abandon()` came while a writer was running; that writer calls the sink's.
    private var abandonPending = false
    /// The sink's `abandon()` has been called or handed to a thread that will call it.
    private var sinkAbandoned = false

    init(sink: any HTTPBodySink, writers: ResponderPool, resume: @escaping @Sendable () -> Void) {
        self.sink = sink
        self.writers = writers
        self.resume = resume
        mutex = .allocate(capacity: 1)
        idle = .allocate(capacity: 1)
        // Default attributes cannot fail to initialise on Linux.
        _ = pthread_mutex_init(mutex, nil)
        _ = pthread_cond_init(idle, nil)
    }

    deinit {
        _ = pthread_cond_destroy(idle)
        _ = pthread_mutex_destroy(mutex)
        idle.deallocate()
        mutex.deallocate()
    }

    /// Takes a copy of `chunk` for the writer, or pauses the connection (`pause` runs under the
    /// lock, so the writer cannot resume the connection before it is suspended).
    func offer(_ chunk: UnsafeRawBufferPointer, pause: () -> Void) -> Offer {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !failed else { return .refused }
        if buffered > 0, chunk.count > Self.capacity - buffered {
            paused = true
            pause()
            return .paused
        }
        chunks.append(Array(chunk))
        buffered += chunk.count
        if !writing {
            writing = true
            guard writers.submit({ self.drain() }, accepted: {}) else {
                // The writers are stopped: only while the server stops.
                writing = false
                failLocked()
                return .refused
            }
        }
        return .accepted
    }

    /// Waits until every accepted chunk is in the sink; false if the body failed meanwhile
    /// (then the caller abandons it). On a worker, once the whole body has been received.
    func waitUntilWritten() -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        finishing = true
        while writing {
            pthread_cond_wait(idle, mutex)
        }
        return !failed
    }

    /// Fails a body still being received (its connection is past a deadline, or the server is
    /// stopping): the next chunk is refused, and a paused connection is resumed to be refused.
    func cancel() {
        pthread_mutex_lock(mutex)
        guard !finishing else {
            pthread_mutex_unlock(mutex)
            return
        }
        failLocked()
        let wake = paused
        paused = false
        pthread_mutex_unlock(mutex)
        if wake { resume() }
    }

    /// The request ended without the responder: drops what is buffered and has the sink's
    /// `abandon()` called once, on a writer (it may touch the disk), after any write in progress.
    func abandon() {
        pthread_mutex_lock(mutex)
        failLocked()
        if writing {
            abandonPending = true
            pthread_mutex_unlock(mutex)
            return
        }
        let call = !sinkAbandoned
        sinkAbandoned = true
        pthread_mutex_unlock(mutex)
        guard call else { return }
        let sink = self.sink
        if !writers.submit({ sink.abandon() }, accepted: {}) {
            sink.abandon()  // the writers are stopped: only while the server stops
        }
    }

    /// A writer job: hands the buffered chunks to the sink in order until none is left.
    private func drain() {
        while true {
            pthread_mutex_lock(mutex)
            if abandonPending, !sinkAbandoned {
                sinkAbandoned = true
                abandonPending = false
                writing = false
                pthread_cond_broadcast(idle)
                pthread_mutex_unlock(mutex)
                sink.abandon()
                return
            }
            guard !failed, let chunk = chunks.removeFirst() else {
                writing = false
                pthread_cond_broadcast(idle)
                pthread_mutex_unlock(mutex)
                return
            }
            buffered -= chunk.count
            pthread_mutex_unlock(mutex)

            let accepted = chunk.withUnsafeBytes { sink.write($0) }

            pthread_mutex_lock(mutex)
            var abandonSink = false
            if !accepted {
                // A refusal ends the request, and the sink is abandoned as the protocol says.
                failLocked()
                abandonSink = !sinkAbandoned
                sinkAbandoned = true
            }
            let wake = paused && (failed || buffered <= Self.capacity / 2)
            if wake { paused = false }
            pthread_mutex_unlock(mutex)
            if abandonSink { sink.abandon() }
            if wake { resume() }
        }
    }

    private func failLocked() {
        failed = true
        chunks = JobQueue()
        buffered = 0
    }
}

/// The streamed bodies of a daemon's requests in progress, so `stop()` can resume every paused
/// connection before MHD_stop_daemon (which does not allow a suspended one).
final class StreamedBodies: Sendable {
    private let state = Mutex<(bodies: [ObjectIdentifier: StreamedBody], closed: Bool)>(([:], false))

    /// Registers `body`; false once `cancelAll()` has run (the caller then cancels it).
    func add(_ body: StreamedBody) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.bodies[ObjectIdentifier(body)] = body
            return true
        }
    }

    func remove(_ body: StreamedBody) {
        state.withLock { _ = $0.bodies.removeValue(forKey: ObjectIdentifier(body)) }
    }

    /// Cancels every body still being received, and any registered later.
    func cancelAll() {
        let bodies = state.withLock { state in
            state.closed = true
            return Array(state.bodies.values)
        }
        for body in bodies { body.cancel() }
    }
}
