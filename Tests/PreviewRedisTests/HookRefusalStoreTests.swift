import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

/// `PreviewStore.rememberHookRefusal` against a real redis-server: the refusal lives in the
/// pending upload's hash, and only while that hash does.
@Suite("Hook refusal kept with the upload")
struct HookRefusalStoreTests {
    let redis: RedisServerFixture
    let store: PreviewStore
    let now: Int64 = 1_800_000_000

    init() throws {
        redis = try RedisServerFixture()
        store = PreviewStore(pool: redis.pool(), keys: RedisKeys(prefix: "hr"))
    }

    @Test("a refusal is read back with the upload, which keeps its TTL")
    func refusalIsReadBack() throws {
        let upload = PendingUploadLimitTests.upload(42, 1, issuedAt: now)
        #expect(try store.recordUpload(upload, now: now, maxPending: 8) == .recorded)
        #expect(try store.uploadAndPreview(streamId: 42, uploadId: upload.uploadId).0?.hookRefusal == nil)

        try store.rememberHookRefusal(streamId: 42, uploadId: upload.uploadId, reason: "no phone numbers")
        let read = try #require(try store.uploadAndPreview(streamId: 42, uploadId: upload.uploadId).0)
        #expect(read.hookRefusal == "no phone numbers")
        var expected = upload
        expected.hookRefusal = "no phone numbers"
        #expect(read == expected)
        let ttl = try #require(try redis.connection().command(["TTL", store.keys.upload(42, upload.uploadId)]).int)
        #expect(ttl > 0, "it still ends with the upload")
    }

    @Test("an upload that is gone is not brought back by its refusal")
    func goneUploadStaysGone() throws {
        let uploadId = String(format: "%032x", 7)
        try store.rememberHookRefusal(streamId: 42, uploadId: uploadId, reason: "late")
        #expect(try redis.connection().command(["EXISTS", store.keys.upload(42, uploadId)]).int == 0)
    }
}
