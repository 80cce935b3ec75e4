import Synchronization

/// Whether the object store answers, for `/readyz`: a ranged GET of a key that does not exist
/// must come back as "absent" (a missing bucket, refused credentials or an unreachable store
/// throw). Checked at most once per `maxAgeMilliseconds`, so frequent probes cost the store
/// nothing.
final class StorageReadiness: Sendable {
    static let probeKey = "previews/.readyz-probe"
    private let maxAgeMilliseconds: Int64
    private let last = Mutex<(checkedAt: Int64, failure: String?)?>(nil)

    init(maxAgeMilliseconds: Int64 = 5000) {
        self.maxAgeMilliseconds = maxAgeMilliseconds
    }

    /// nil when the store answered, else why not.
    func failure(of storage: any ObjectStorage, nowMilliseconds: Int64) -> String? {
        if let cached = last.withLock({ $0 }), nowMilliseconds - cached.checkedAt < maxAgeMilliseconds {
            return cached.failure
        }
        var failure: String?
        do { _ = try storage.read(key: Self.probeKey, offset: 0, length: 1) } catch { failure = "\(error)" }
        last.withLock { $0 = (nowMilliseconds, failure) }
        return failure
    }
}
