// HMAC-SHA256 under a fixed key, keyed once.
import COpenSSL

/// An HMAC-SHA256 (RFC 2104) key kept as a keyed `EVP_MAC_CTX` template; `authenticate`
/// duplicates it per message, 2.6x faster than keying per message (NOTES-C).
///
/// `@unchecked Sendable`: after `init` the template is only read (`EVP_MAC_CTX_dup` copies
/// it), never updated or re-keyed, so concurrent `authenticate` calls are safe.
public final class HMACSHA256Key: @unchecked Sendable {
    private let template: OpaquePointer

    public init(key: [UInt8]) throws {
        let algorithms = try FetchedAlgorithms.get()
        guard let context = EVP_MAC_CTX_new(algorithms.hmac) else {
            throw CryptoError.fromQueue("EVP_MAC_CTX_new")
        }
        guard initHMAC(context, key: key) else {
            EVP_MAC_CTX_free(context)
            throw CryptoError.fromQueue("EVP_MAC_init HMAC-SHA256")
        }
        template = context
    }

    deinit { EVP_MAC_CTX_free(template) }

    /// The 32-byte tag of `message`. Stops the process if OpenSSL cannot copy a context (out of
    /// memory): a wrong tag would be worse.
    public func authenticate(_ message: [UInt8]) -> [UInt8] {
        guard let context = EVP_MAC_CTX_dup(template) else {
            fatalError("EVP_MAC_CTX_dup failed: \(drainOpenSSLErrors())")
        }
        defer { EVP_MAC_CTX_free(context) }
        return finishHMAC(context, message: message)
    }
}
