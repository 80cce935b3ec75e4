extension ObjectStorage {
    /// TEMPORARY until the stores' own batch deletes land: one key at a time.
    func delete(keys: [String], concurrency: Int) -> [String: StorageError] {
        var failed: [String: StorageError] = [:]
        for key in keys {
            do { try delete(key: key) } catch let error as StorageError { failed[key] = error } catch {
                failed[key] = StorageError("\(error)")
            }
        }
        return failed
    }
}
