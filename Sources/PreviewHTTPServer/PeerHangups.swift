import CEpoll
import Glibc
import PreviewCore
import Synchronization

/// Notices a client leaving an open stream while its connection is suspended. libmicrohttpd does
/// not watch a suspended connection at all, so without this a viewer that closed its page would
/// hold its slot until the next heartbeat's write failed (the first write after a close still
/// succeeds, so two heartbeats). Each stream's socket is in an epoll set for the peer's close
/// (`EPOLLRDHUP`) and a reset (`EPOLLHUP`, `EPOLLERR`), once (`EPOLLONESHOT`); one thread waits
/// on the set and tells the stream (`ResponseStream.hangUp`), which wakes its connection so MHD
/// closes it at once.
///
/// A socket is never removed from the set by hand: the kernel drops it when MHD closes the
/// descriptor, so a number reused by a later connection is never removed by mistake. An event
/// carries a token, not the descriptor, and a token whose stream has been forgotten is ignored,
/// so a late event reaches nothing.
final class PeerHangups: Sendable {
    private let epoll: Int32
    private let streams = Mutex<(next: UInt64, byToken: [UInt64: any ResponseStream])>((1, [:]))
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)

    /// Creates the set and starts its thread; nil if the system refuses either.
    init?() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return nil }
        var created = pthread_t()
        let retained = Unmanaged.passRetained(self)
        guard pthread_create(&created, nil, runPeerHangups, retained.toOpaque()) == 0 else {
            retained.release()
            _ = close(epoll)  // nothing was added to it
            return nil
        }
        thread.withLock { $0 = created }
    }

    /// Watches `socket`, the connection of `stream`, until `forget(token)`; returns the token,
    /// or nil when the socket cannot be watched (the stream is then freed at a failed write,
    /// as before).
    func watch(_ socket: Int32, for stream: any ResponseStream) -> UInt64? {
        let token = streams.withLock { streams -> UInt64 in
            let token = streams.next
            streams.next += 1
            streams.byToken[token] = stream
            return token
        }
        var event = epoll_event()
        event.events = EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLONESHOT.rawValue
        event.data.u64 = token
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 else {
            forget(token)
            return nil
        }
        return token
    }

    /// The stream is over: an event for it still pending is ignored.
    func forget(_ token: UInt64) {
        _ = streams.withLock { $0.byToken.removeValue(forKey: token) }
    }

    /// Streams watched now.
    var count: Int { streams.withLock { $0.byToken.count } }

    /// Stops and joins the thread, then closes the set. Idempotent.
    func stop() {
        stopping.store(true, ordering: .releasing)
        guard
            let joining = thread.withLock({ thread -> pthread_t? in
                defer { thread = nil }
                return thread
            })
        else { return }
        _ = pthread_join(joining, nil)  // fails only for a bad id; ours is joinable
        _ = close(epoll)  // no thread waits on it any more; a failed close changes nothing
    }

    fileprivate func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopping.load(ordering: .acquiring) {
            // 100 ms: how late stop() is noticed; events themselves are handled as they come.
            let ready = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, 256, 100) }
            guard ready > 0 else { continue }  // timeout, or EINTR
            let gone = streams.withLock { streams in
                events[0..<Int(ready)].compactMap { streams.byToken.removeValue(forKey: $0.data.u64) }
            }
            // Outside the lock: waking a stream resumes its connection, which takes MHD's locks.
            for stream in gone { stream.hangUp() }
        }
    }
}

/// pthread entry point: a file-scope function, as a closure here may not be a C pointer.
private func runPeerHangups(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    Unmanaged<PeerHangups>.fromOpaque(argument).takeRetainedValue().run()
    return nil
}
