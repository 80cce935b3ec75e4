import PreviewCore
import PreviewRedis

/// Removes expired previews and deletes objects nobody can use any more. Every step is
/// safe to run from several processes at once: previews are removed by compare-and-delete
/// in a script, and an object is deleted only after its stream's script says it is free.
struct Sweeper: Sendable {
    let store: PreviewStore
    let storage: any ObjectStorage
    /// Replaced objects are kept this long (viewers may still be playing their URLs).
    let urlLifetime: Int64
    /// How often a kept object is looked at again, at most.
    let recheckAfter: Int64
    let batchSize = 100

    struct Report: Sendable, Equatable, CustomStringConvertible {
        var previewsRemoved = 0
        var objectsDeleted = 0
        var objectsKept = 0
        var failures = 0

        var description: String {
            "previews_removed=\(previewsRemoved) objects_deleted=\(objectsDeleted) objects_kept=\(objectsKept) failures=\(failures)"
        }
    }

    func sweepOnce(now: Int64) throws -> Report {
        var report = Report()
        for streamId in try store.expiredStreams(now: now, limit: batchSize) {
            if try store.retire(streamId: streamId, retireUntil: now + urlLifetime, onlyIfExpiredAt: now) != nil {
                report.previewsRemoved += 1
            }
        }
        for key in try store.dueObjects(now: now, limit: batchSize) {
            switch try store.collectDecision(objectKey: key, now: now, recheckAfter: recheckAfter) {
            case .keep(let until):
                try store.scheduleObject(key, at: until)
                report.objectsKept += 1
            case .delete:
                do {
                    try storage.delete(key: key)
                    try store.forgetObject(key)
                    report.objectsDeleted += 1
                } catch let error as RedisError {
                    throw error
                } catch {
                    Log.warn("object_delete_failed", ["key": key, "error": "\(error)"])
                    try store.scheduleObject(key, at: now + recheckAfter)
                    report.failures += 1
                }
            }
        }
        return report
    }
}
