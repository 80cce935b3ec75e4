import PreviewCore

/// The `ObjectStorage` calls of the local store, timed into `metrics` when it is set: inspect
/// counts as `head`, read as `get`, each object deleted (alone or in a batch) as `delete`.
extension LocalObjectStore {
    package func inspect(key: String, prefixLength: Int) throws -> ObjectInfo? {
        try measured("head") { try inspectFile(key: key, prefixLength: prefixLength) }
    }

    package func read(key: String, offset: Int64, length: Int) throws -> [UInt8]? {
        try measured("get") { try readFile(key: key, offset: offset, length: length) }
    }

    package func delete(key: String) throws {
        try measured("delete") { try deleteFile(key: key) }
    }

    package func delete(keys: [String], concurrency: Int) -> [String: StorageError] {
        deleteFiles(keys: keys, concurrency: concurrency)
    }

    /// One object's removal, timed as a `delete`; a returned error counts as a failure.
    func measuredDelete(_ remove: () -> StorageError?) -> StorageError? {
        guard let metrics else { return remove() }
        let started = ContinuousClock.now
        let failure = remove()
        metrics.record(
            "delete", nanoseconds: started.duration(to: .now).metricNanoseconds, failed: failure != nil)
        return failure
    }

    private func measured<T>(_ operation: String, _ body: () throws -> T) throws -> T {
        guard let metrics else { return try body() }
        return try metrics.measure(operation, clock: ContinuousClock(), body)
    }
}
