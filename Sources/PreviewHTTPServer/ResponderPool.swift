import Glibc

/// A fixed set of threads running responder calls, so a slow responder holds one of
/// `threadCount` workers rather than the libmicrohttpd thread that owns its connection
/// (and with it every other connection that thread serves). A second pool writes streamed
/// bodies to their sinks (`StreamedBody`).
///
/// `@unchecked Sendable`: `queue`, `closed` and `threads` are only touched with `mutex` held.
final class ResponderPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let wakeUp: UnsafeMutablePointer<pthread_cond_t>
    /// Jobs waiting for a worker; a job (and the request it holds) leaves it when taken.
    private var queue = JobQueue<Job>()
    private var closed = false
    private var threads: [pthread_t] = []

    /// Starts `threadCount` workers; nil if the system refuses to create a thread.
    init?(threadCount: Int) {
        mutex = .allocate(capacity: 1)
        wakeUp = .allocate(capacity: 1)
        // Default attributes cannot fail to initialise on Linux.
        _ = pthread_mutex_init(mutex, nil)
        _ = pthread_cond_init(wakeUp, nil)
        for _ in 0..<threadCount {
            var thread = pthread_t()
            let worker = Unmanaged.passRetained(self)
            guard pthread_create(&thread, nil, runWorker, worker.toOpaque()) == 0 else {
                worker.release()
                shutdown()
                return nil
            }
            threads.append(thread)
        }
    }

    deinit {
        _ = pthread_cond_destroy(wakeUp)
        _ = pthread_mutex_destroy(mutex)
        wakeUp.deallocate()
        mutex.deallocate()
    }

    /// Queues `job` unless the pool is shut down. `accepted` runs under the queue lock just
    /// before the job is queued, so it happens before the job can start.
    func submit(_ job: @escaping Job, accepted: () -> Void) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !closed else { return false }
        accepted()
        queue.append(job)
        pthread_cond_signal(wakeUp)
        return true
    }

    /// Refuses new jobs, lets queued ones run, and joins the workers. Idempotent.
    func shutdown() {
        pthread_mutex_lock(mutex)
        closed = true
        let joining = threads
        threads = []
        pthread_cond_broadcast(wakeUp)
        pthread_mutex_unlock(mutex)
        for thread in joining {
            _ = pthread_join(thread, nil)  // fails only for a bad id; ours are joinable
        }
    }

    /// Runs on each worker thread until shutdown with an empty queue.
    fileprivate func work() {
        while let job = take() {
            job()
        }
    }

    private func take() -> Job? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while queue.isEmpty, !closed {
            pthread_cond_wait(wakeUp, mutex)
        }
        return queue.removeFirst()
    }
}

/// pthread entry point: a file-scope function, as a closure here may not be a C pointer.
private func runWorker(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let pool = Unmanaged<ResponderPool>.fromOpaque(argument).takeRetainedValue()
    pool.work()
    return nil
}
