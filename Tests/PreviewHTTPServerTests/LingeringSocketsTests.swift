import Foundation
import Glibc
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewHTTPServer

/// A number several threads share: an atomic in a class, so closures can capture it.
final class SharedCount: Sendable {
    private let atomic = Atomic<Int>(0)

    var value: Int { atomic.load(ordering: .acquiring) }
    func add(_ amount: Int = 1) { atomic.add(amount, ordering: .sequentiallyConsistent) }
    func set(_ value: Int) { atomic.store(value, ordering: .releasing) }
}

@Suite("LingeringSockets: handing a socket over never waits for a drain")
struct LingeringSocketsTests {
    /// One end of a fresh socket pair (the other end is kept open by the caller).
    static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        return (ends[0], ends[1])
    }

    @Test("adopt returns while a drain pass is stalled reading a socket")
    func adoptDoesNotWaitForADrainPass() throws {
        let stalled = SharedCount()
        let release = DispatchSemaphore(value: 0)
        let sockets = LingeringSockets(receive: { _, _ in
            stalled.set(1)
            release.wait()
            return .nothing
        })
        let (first, firstPeer) = try Self.socketPair()
        let (second, secondPeer) = try Self.socketPair()
        defer {
            close(firstPeer)
            close(secondPeer)
        }
        sockets.adopt(first, now: 0)
        let drained = SharedCount()
        Thread.detachNewThread {
            sockets.drain(now: 1)
            drained.set(1)
        }
        // Always let the drain go, so a failing test does not leave a thread stalled.
        defer {
            release.signal()
            _ = eventually(within: 30) { drained.value == 1 }
            sockets.closeAll()
        }
        try #require(eventually(within: 30) { stalled.value == 1 })
        let adopted = SharedCount()
        Thread.detachNewThread {
            sockets.adopt(second, now: 1)
            adopted.set(1)
        }
        #expect(eventually(within: 10) { adopted.value == 1 })
        #expect(drained.value == 0, "the drain pass was still stalled")
        #expect(sockets.count == 2)
    }

    @Test("a drain pass reads at most one bounded read from each socket")
    func onePassReadsABoundedAmount() throws {
        let reads = Mutex<[Int]>([])
        let sockets = LingeringSockets(receive: { _, scratch in
            reads.withLock { $0.append(scratch.count) }
            return .bytes(scratch.count)  // a sender that never runs dry
        })
        let (socket, peer) = try Self.socketPair()
        defer { close(peer) }
        sockets.adopt(socket, now: 0)
        sockets.drain(now: 1)
        #expect(reads.withLock { $0 } == [LingeringSockets.readPerPass])
        #expect(sockets.count == 1)
        sockets.closeAll()
        #expect(sockets.count == 0)
    }

    @Test("a socket past its deadline is closed without being read, however much it sends")
    func deadlineComesBeforeReading() throws {
        let reads = SharedCount()
        let sockets = LingeringSockets(receive: { _, scratch in
            reads.add()
            return .bytes(scratch.count)
        })
        let (socket, peer) = try Self.socketPair()
        defer { close(peer) }
        sockets.adopt(socket, now: 0)
        sockets.drain(now: LingeringSockets.maxNanoseconds)
        #expect(reads.value == 0)
        #expect(sockets.count == 0)
    }

    @Test("a socket whose peer closes is closed on the next pass")
    func closedPeerEndsDraining() throws {
        let sockets = LingeringSockets()
        let (socket, peer) = try Self.socketPair()
        sockets.adopt(socket, now: 0)
        sockets.drain(now: 1)
        #expect(sockets.count == 1)
        close(peer)
        sockets.drain(now: 2)
        #expect(sockets.count == 0)
    }
}
