import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Synchronization
import Testing

/// `PreviewStore.recordUpload` against a real redis-server: at most N pending uploads per stream,
/// counted and recorded atomically by one script on the stream's slot.
@Suite("Pending upload limit")
struct PendingUploadLimitTests {
    let redis: RedisServerFixture
    let store: PreviewStore
    let now: Int64 = 1_800_000_000

    init() throws {
        redis = try RedisServerFixture()
        store = PreviewStore(pool: redis.pool(maxIdle: 16), keys: RedisKeys(prefix: "pl"))
    }

    /// An upload of `stream` issued at `issuedAt`, committable until `issuedAt + 1200`.
    func upload(_ stream: Int64, _ number: Int, issuedAt: Int64) -> PendingUpload {
        Self.upload(stream, number, issuedAt: issuedAt)
    }

    static func upload(_ stream: Int64, _ number: Int, issuedAt: Int64) -> PendingUpload {
        let id = String(format: "%032x", number)
        let spec = UploadSpec.ObjectSpec(type: .mp4, declaredBytes: 10, maxBytes: 10)
        return PendingUpload(
            streamId: stream, uploadId: id, movieKey: "m/\(stream)/\(id)", thumbnailKey: "t/\(stream)/\(id)",
            movie: spec, thumbnail: UploadSpec.ObjectSpec(type: .jpeg, declaredBytes: 5, maxBytes: 5),
            urlExpiresAt: issuedAt + 900, commitDeadline: issuedAt + 1200)
    }

    func command(_ arguments: [String]) throws -> RedisValue {
        try redis.connection().command(arguments)
    }

    @Test func theUploadAfterTheLimitIsRefusedUntilTheOldestPassesItsCommitDeadline() throws {
        for number in 0..<3 {
            #expect(
                try store.recordUpload(
                    upload(42, number, issuedAt: now + Int64(number)), now: now + Int64(number), maxPending: 3)
                    == .recorded)
        }
        // The oldest is committable through now + 1200, so it counts until now + 1201.
        #expect(
            try store.recordUpload(upload(42, 3, issuedAt: now + 10), now: now + 10, maxPending: 3)
                == .tooManyPending(retryAfter: 1191))
        #expect(
            try store.recordUpload(upload(42, 3, issuedAt: now + 1200), now: now + 1200, maxPending: 3)
                == .tooManyPending(retryAfter: 1))
        #expect(
            try command(["EXISTS", store.keys.upload(42, String(format: "%032x", 3))]).int == 0,
            "a refused upload records nothing")
        #expect(try command(["ZCARD", store.keys.garbage(42)]).int == 6, "only the three recorded uploads' objects")

        #expect(
            try store.recordUpload(upload(42, 3, issuedAt: now + 1201), now: now + 1201, maxPending: 3) == .recorded)
        let pending = try command(["ZRANGE", store.keys.pendingUploads(42), "0", "-1"]).array ?? []
        #expect(
            pending.compactMap(\.string) == [1, 2, 3].map { String(format: "%032x", $0) }, "the expired one was trimmed"
        )
        #expect(
            try command(["EXISTS", store.keys.upload(42, String(format: "%032x", 0))]).int == 1,
            "the expired upload's record stays until its own TTL or the sweeper")
    }

    @Test func eachStreamHasItsOwnLimitAndKeyInItsHashTag() throws {
        #expect(try store.recordUpload(upload(42, 0, issuedAt: now), now: now, maxPending: 1) == .recorded)
        #expect(try store.recordUpload(upload(43, 1, issuedAt: now), now: now, maxPending: 1) == .recorded)
        #expect(try store.recordUpload(upload(42, 2, issuedAt: now), now: now, maxPending: 1) != .recorded)
        #expect(store.keys.pendingUploads(42) == "pl:{s:42}:pending")
    }

    @Test func publishingAnUploadFreesItsPlace() throws {
        let first = upload(42, 0, issuedAt: now)
        #expect(try store.recordUpload(first, now: now, maxPending: 1) == .recorded)
        #expect(try store.recordUpload(upload(42, 1, issuedAt: now), now: now, maxPending: 1) != .recorded)
        let record = PreviewRecord(
            streamId: 42, version: 0, uploadId: first.uploadId, movieKey: first.movieKey,
            thumbnailKey: first.thumbnailKey, movieType: .mp4, thumbnailType: .jpeg, movieBytes: 10,
            thumbnailBytes: 5, movieURL: nil, thumbnailURL: nil, updatedAt: now, expiresAt: now + 600, durationMs: 0,
            width: 0, height: 0, fastStart: true)
        let outcome = try store.publish(record, retireUntil: now + 3600, now: now)
        let published = if case .published = outcome { true } else { false }
        try #require(published, "\(outcome)")
        #expect(try store.recordUpload(upload(42, 1, issuedAt: now), now: now, maxPending: 1) == .recorded)
    }

    @Test func thePendingSetExpiresWithItsLastDeadline() throws {
        let realNow = Int64(Date().timeIntervalSince1970)
        #expect(try store.recordUpload(upload(42, 0, issuedAt: realNow), now: realNow, maxPending: 2) == .recorded)
        let ttl = try #require(try command(["TTL", store.keys.pendingUploads(42)]).int)
        #expect((1190...1201).contains(ttl), "TTL \(ttl)")
    }

    @Test func concurrentRequestsNeverRecordMoreThanTheLimit() throws {
        let outcomes = ConcurrentResults()
        let store = store, now = now
        DispatchQueue.concurrentPerform(iterations: 24) { number in
            let outcome = try? store.recordUpload(
                Self.upload(42, number, issuedAt: now), now: now, maxPending: 8)
            outcomes.append(outcome)
        }
        let all = outcomes.values
        #expect(all.count == 24 && !all.contains(nil), "every call answered")
        #expect(all.filter { $0 == .recorded }.count == 8)
        #expect(try command(["ZCARD", store.keys.pendingUploads(42)]).int == 8)
    }
}

/// Results gathered from concurrent callers.
private final class ConcurrentResults: Sendable {
    private let storage = Mutex<[PreviewStore.RecordOutcome?]>([])
    func append(_ value: PreviewStore.RecordOutcome?) { storage.withLock { $0.append(value) } }
    var values: [PreviewStore.RecordOutcome?] { storage.withLock { $0 } }
}
