import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The heartbeat that keeps a sweep lease alive from its own thread, against a real Redis.
/// These wait on the real clock because the lease's expiry is what they are about.
@Suite struct SweepLeaseHeartbeatTests {
    func lease(_ store: PreviewStore, milliseconds: Int64) throws -> Int64 {
        guard case .acquired(let token) = try store.acquireSweepLease(milliseconds: milliseconds) else {
            throw RedisError(kind: .protocolError, message: "the lease is held")
        }
        return token
    }

    @Test func aLeaseRenewedByItsHeartbeatOutlivesItsLifetimeAndEndsWhenReleased() throws {
        let app = try AppHarness()
        let store = app.context.store
        let token = try lease(store, milliseconds: 300)
        let heartbeat = SweepLeaseHeartbeat(
            store: store, token: token, leaseMilliseconds: 300, intervalMilliseconds: 50)
        heartbeat.start()
        let started = ContinuousClock.now
        // Held for five lifetimes of the lease, whatever the work in between does.
        let heldThroughout = eventually(within: 10) {
            let holder = try? app.redis.connection().command(["GET", store.keys.sweepLease]).string
            return holder != String(token) || ContinuousClock.now - started > .milliseconds(1500)
        }
        #expect(heldThroughout)
        #expect(try app.redis.connection().command(["GET", store.keys.sweepLease]).string == String(token))
        #expect(!heartbeat.isLost)
        heartbeat.stop()
        try store.releaseSweepLease(token: token)
        #expect(try app.redis.connection().command(["EXISTS", store.keys.sweepLease]).int == 0)
    }

    @Test func aHeartbeatThatFindsAnotherTokenReportsTheLeaseLost() throws {
        let app = try AppHarness()
        let store = app.context.store
        let token = try lease(store, milliseconds: 10_000)
        let heartbeat = SweepLeaseHeartbeat(
            store: store, token: token, leaseMilliseconds: 10_000, intervalMilliseconds: 50)
        heartbeat.start()
        defer { heartbeat.stop() }
        _ = try app.redis.connection().command(["SET", store.keys.sweepLease, String(token + 1), "PX", "10000"])
        #expect(eventually(within: 10) { heartbeat.isLost })
        #expect(
            try app.redis.connection().command(["GET", store.keys.sweepLease]).string == String(token + 1),
            "the other holder's lease is left alone")
    }
}
