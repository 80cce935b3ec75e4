import Synchronization

/// The derived signing key of a V4 scheme (SigV4's `kSigning`, the GCS HMAC key), kept for the
/// credential scope it was derived for. The scope changes once a day (its date), while deriving
/// the key costs four HMACs, and the key signs every URL of that day.
///
/// One entry: a signer signs within one region and service, so only the date moves. The lock
/// is held only to read or swap the entry; deriving happens outside it.
final class SigningKeyCache: Sendable {
    private struct Entry: Sendable {
        var scope: String
        var key: any HMACKey
    }

    private let latest = Mutex<Entry?>(nil)

    /// The key for `scope`, derived by `derive` (and prepared with `crypto`) when the cached
    /// one is of another scope.
    func key(scope: String, crypto: any CryptoPrimitives, derive: () -> [UInt8]) -> any HMACKey {
        if let entry = latest.withLock({ $0 }), entry.scope == scope { return entry.key }
        let key = crypto.hmacKey(derive())
        latest.withLock { $0 = Entry(scope: scope, key: key) }
        return key
    }
}
