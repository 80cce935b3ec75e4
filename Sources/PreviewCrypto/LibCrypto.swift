// The only file that calls OpenSSL 3 libcrypto (STYLE "C at the edge"): each handle is owned by
// a final class that frees it in deinit, and no raw pointer leaves this file.
import COpenSSL

/// Swift wrappers over libcrypto: values in, values (or `CryptoError`) out.
enum LibCrypto {
    // MARK: One-shot operations

    /// SHA-256 (FIPS 180-4) of `data`. Stops the process on failure: a wrong digest would be worse.
    static func sha256(_ data: [UInt8]) -> [UInt8] {
        let algorithms = FetchedAlgorithms.required
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = withNonNilBytes(data) { bytes, count in
            EVP_Digest(bytes, count, &digest, &length, algorithms.sha256, nil)
        }
        guard ok == 1, length == 32 else {
            fatalError("EVP_Digest SHA256 failed: \(drainErrors())")
        }
        return digest
    }

    /// MD5 (RFC 1321) of `data`, for integrity headers such as S3's `Content-MD5`, never for
    /// security. Throws when the provider offers no MD5 (a FIPS-only configuration).
    static func md5(_ data: [UInt8]) throws -> [UInt8] {
        guard let md5 = EVP_MD_fetch(nil, "MD5", nil) else { throw CryptoError.fromQueue("EVP_MD_fetch MD5") }
        defer { EVP_MD_free(md5) }
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        let ok = withNonNilBytes(data) { bytes, count in EVP_Digest(bytes, count, &digest, &length, md5, nil) }
        guard ok == 1, length == 16 else { throw CryptoError.fromQueue("EVP_Digest MD5") }
        return digest
    }

    /// HMAC-SHA256 (RFC 2104) keyed for this one message. Stops the process on failure.
    ///
    /// Starts from a copy of a context whose digest is already set (`HMACTemplate.unkeyed`), so
    /// the digest is not looked up by name for every message.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let context = HMACTemplate.unkeyed.copy()
        defer { EVP_MAC_CTX_free(context) }
        let keyed = withNonNilBytes(key) { bytes, count in EVP_MAC_init(context, bytes, count, nil) == 1 }
        guard keyed else { fatalError("EVP_MAC_init failed: \(drainErrors())") }
        return finishHMAC(context, message: message)
    }

    /// `CRYPTO_memcmp`: true when `a` and `b` hold the same bytes, in time that does not depend
    /// on where they differ. Different lengths are unequal at once (lengths are not secret here).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }

    /// `count` (>= 0) bytes from OpenSSL's DRBG (`RAND_bytes`), filled in `Int32`-sized chunks.
    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let chunk = min(count - filled, Int(Int32.max))
            let ok = result.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { RAND_bytes($0 + filled, Int32(chunk)) } ?? 0
            }
            guard ok == 1 else { throw CryptoError.fromQueue("RAND_bytes") }
            filled += chunk
        }
        return result
    }

    // MARK: Owned handles

    /// Owns an HMAC-SHA256 `EVP_MAC_CTX` set up once (digest, and key when given) and copied
    /// for each message with `EVP_MAC_CTX_dup`, which measured 2.6x faster than setting up a
    /// context per message.
    ///
    /// `@unchecked Sendable`: the template context is never updated, initialised or finalised
    /// after `init`; each message works on its own duplicate, and duplicating only reads the
    /// template.
    final class HMACTemplate: @unchecked Sendable {
        private let context: OpaquePointer

        /// Digest set, no key yet: the start of every one-shot MAC.
        static let unkeyed = HMACTemplate()

        /// A context keyed with `key`. Stops the process on failure, as the one-shot MAC does.
        init(key: [UInt8]) {
            context = Self.newContext()
            guard initHMAC(context, key: key) else { fatalError("EVP_MAC_init failed: \(drainErrors())") }
        }

        /// A context with its digest set and no key: `EVP_MAC_init` with a key and no parameters
        /// keeps that digest.
        private init() {
            context = Self.newContext()
            let ok = OSSL_MAC_PARAM_DIGEST.withCString { name in
                "SHA256".withCString { digest in
                    var params = [
                        OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                        OSSL_PARAM_construct_end(),
                    ]
                    return EVP_MAC_CTX_set_params(context, &params) == 1
                }
            }
            guard ok else { fatalError("EVP_MAC_CTX_set_params failed: \(drainErrors())") }
        }

        private static func newContext() -> OpaquePointer {
            guard let context = EVP_MAC_CTX_new(FetchedAlgorithms.required.hmac) else {
                fatalError("EVP_MAC_CTX_new failed: \(drainErrors())")
            }
            return context
        }

        deinit { EVP_MAC_CTX_free(context) }

        /// A duplicate the caller owns and frees (`EVP_MAC_CTX_free`).
        func copy() -> OpaquePointer {
            guard let copy = EVP_MAC_CTX_dup(context) else { fatalError("EVP_MAC_CTX_dup failed: \(drainErrors())") }
            return copy
        }

        /// HMAC-SHA256 of `message` under the template's key.
        func authenticate(_ message: [UInt8]) -> [UInt8] {
            let context = copy()
            defer { EVP_MAC_CTX_free(context) }
            return finishHMAC(context, message: message)
        }
    }

    /// Owns an `EVP_PKEY` decoded from PEM.
    ///
    /// `@unchecked Sendable`: the `EVP_PKEY` is never modified after `init`; OpenSSL 3 allows
    /// concurrent signing with one key, and each operation gets its own `EVP_MD_CTX`.
    final class PKey: @unchecked Sendable {
        private let key: OpaquePointer

        /// Decodes one PEM private key (PKCS#1 or unencrypted PKCS#8); `context` prefixes any
        /// error message.
        init(privateKeyPEM pem: String, context: String) throws {
            var text = Array(pem.utf8)
            guard !text.isEmpty, text.count < Int(Int32.max) else {
                throw CryptoError(message: "\(context): PEM text is empty or too large")
            }
            let key: OpaquePointer? = try text.withUnsafeMutableBytes { buffer in
                guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
                    throw CryptoError.fromQueue("\(context): BIO_new_mem_buf")
                }
                defer { BIO_free(bio) }  // ignored result: a memory BIO's free cannot fail usefully
                return PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil)
            }
            text.removeAll()
            guard let key else {
                throw CryptoError.fromQueue("\(context): not a readable PEM key")
            }
            self.key = key
            signingTemplate = Result { try SigningTemplate(key: key) }
        }

        deinit { EVP_PKEY_free(key) }

        /// A SHA-256 signing context set up once for this key (`EVP_DigestSignInit` looks up the
        /// signature algorithm and builds the key's context) and copied for each signature.
        private let signingTemplate: Result<SigningTemplate, any Error>

        /// `@unchecked Sendable`: the template is only read (copied by `EVP_MD_CTX_copy_ex`) after
        /// `init`; each signature updates and finalises its own copy.
        private final class SigningTemplate: @unchecked Sendable {
            let context: OpaquePointer

            init(key: OpaquePointer) throws {
                let algorithms = try FetchedAlgorithms.get()
                guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromQueue("EVP_MD_CTX_new") }
                guard EVP_DigestSignInit(context, nil, algorithms.sha256, nil, key) == 1 else {
                    EVP_MD_CTX_free(context)
                    throw CryptoError.fromQueue("EVP_DigestSignInit")
                }
                self.context = context
            }

            deinit { EVP_MD_CTX_free(context) }
        }

        /// True when the key is one of `types` (OpenSSL names: "RSA", "EC"). On false the error
        /// queue is cleared, so no entry from the lookups outlives the caller's own error.
        func isA(anyOf types: String...) -> Bool {
            let match = types.contains { EVP_PKEY_is_a(key, $0) == 1 }
            if !match { ERR_clear_error() }
            return match
        }

        /// Signs `message` with SHA-256 and the key's default padding (PKCS#1 v1.5 for RSA).
        func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
            let template = try signingTemplate.get()
            guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromQueue("EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_MD_CTX_copy_ex(context, template.context) == 1 else {
                throw CryptoError.fromQueue("EVP_MD_CTX_copy_ex")
            }
            return try withNonNilBytes(message) { bytes, count in
                var length = 0
                guard EVP_DigestSign(context, nil, &length, bytes, count) == 1 else {
                    throw CryptoError.fromQueue("EVP_DigestSign (size)")
                }
                var signature = [UInt8](repeating: 0, count: length)
                guard EVP_DigestSign(context, &signature, &length, bytes, count) == 1 else {
                    throw CryptoError.fromQueue("EVP_DigestSign")
                }
                return Array(signature.prefix(length))
            }
        }
    }

    /// Owns a public `EVP_PKEY` decoded from DER SubjectPublicKeyInfo (`d2i_PUBKEY`).
    ///
    /// `@unchecked Sendable`: the `EVP_PKEY` is never modified after `init`; OpenSSL 3 allows
    /// concurrent verification with one key, and each operation gets its own `EVP_MD_CTX`.
    final class PublicKey: @unchecked Sendable {
        private let key: OpaquePointer

        init(subjectPublicKeyInfo der: [UInt8]) throws {
            guard !der.isEmpty, der.count < Int(Int32.max) else {
                throw CryptoError(message: "public key DER is empty")
            }
            let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            }
            guard let key else { throw CryptoError.fromQueue("d2i_PUBKEY") }
            self.key = key
        }

        deinit { EVP_PKEY_free(key) }

        /// True when the key is of OpenSSL type `name` ("RSA", "EC", "ED25519"); the error
        /// queue is cleared on false.
        func isA(_ name: String) -> Bool {
            let match = EVP_PKEY_is_a(key, name) == 1
            if !match { ERR_clear_error() }
            return match
        }

        /// `EVP_DigestVerify` of `signature` over `message`: with SHA-256 (RSA PKCS#1 v1.5, the
        /// default padding, and ECDSA with a DER signature), or without a digest (Ed25519, which
        /// hashes inside). Any failure is false, with the error queue cleared.
        func verify(_ signature: [UInt8], of message: [UInt8], sha256: Bool) -> Bool {
            guard let context = EVP_MD_CTX_new() else {
                ERR_clear_error()
                return false
            }
            defer { EVP_MD_CTX_free(context) }
            let digest = sha256 ? FetchedAlgorithms.required.sha256 : nil
            guard EVP_DigestVerifyInit(context, nil, digest, nil, key) == 1 else {
                ERR_clear_error()
                return false
            }
            let ok = withNonNilBytes(signature) { signatureBytes, signatureCount in
                withNonNilBytes(message) { bytes, count in
                    EVP_DigestVerify(context, signatureBytes, signatureCount, bytes, count)
                }
            }
            if ok != 1 { ERR_clear_error() }
            return ok == 1
        }
    }
}

// MARK: - Shared by the calls above

extension CryptoError {
    /// Drains this thread's OpenSSL error queue into an error. The queue is per thread and
    /// sticky, so it is always emptied here; a later failure must not report a stale entry.
    fileprivate static func fromQueue(_ context: String) -> CryptoError {
        CryptoError(message: "\(context): \(drainErrors())")
    }
}

/// Empties this thread's error queue, returning its entries oldest first.
@discardableResult
private func drainErrors() -> String {
    var entries: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        entries.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    ERR_clear_error()
    return entries.isEmpty ? "no OpenSSL error recorded" : entries.joined(separator: "; ")
}

/// The algorithms, fetched once from the default provider (`EVP_sha256()` re-resolves on every
/// use, which measured ~25% slower with OpenSSL 3).
///
/// `@unchecked Sendable`: fetched `EVP_MD` / `EVP_MAC` objects are immutable and reference
/// counted atomically; OpenSSL documents them as shareable between threads (crypto(7),
/// "Fetching algorithms"). The wrapper exists only because `OpaquePointer` is not `Sendable`.
/// They are never freed: they live as long as the process.
private struct FetchedAlgorithms: @unchecked Sendable {
    let sha256: OpaquePointer
    let hmac: OpaquePointer

    /// For the throwing APIs.
    static func get() throws -> FetchedAlgorithms { try fetched.get() }

    /// For the non-throwing `CryptoPrimitives` API: without SHA-256 and HMAC the service cannot
    /// sign or verify anything, and returning a wrong digest would be worse than stopping.
    static var required: FetchedAlgorithms {
        switch fetched {
        case .success(let algorithms): return algorithms
        case .failure(let error): fatalError("OpenSSL default provider unusable: \(error)")
        }
    }

    private static let fetched: Result<FetchedAlgorithms, CryptoError> = {
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            return .failure(.fromQueue("EVP_MD_fetch SHA256"))
        }
        guard let hmac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            EVP_MD_free(sha256)
            return .failure(.fromQueue("EVP_MAC_fetch HMAC"))
        }
        return .success(FetchedAlgorithms(sha256: sha256, hmac: hmac))
    }()
}

/// Keys `context` for HMAC-SHA256; false on failure (the error queue holds why).
private func initHMAC(_ context: OpaquePointer, key: [UInt8]) -> Bool {
    // OSSL_PARAM keeps the pointers, so both strings must outlive EVP_MAC_init.
    OSSL_MAC_PARAM_DIGEST.withCString { name in
        "SHA256".withCString { digest in
            var params = [
                OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                OSSL_PARAM_construct_end(),
            ]
            return withNonNilBytes(key) { bytes, count in
                EVP_MAC_init(context, bytes, count, &params) == 1
            }
        }
    }
}

/// Feeds `message` to a keyed context and returns the 32-byte tag; the context is spent.
private func finishHMAC(_ context: OpaquePointer, message: [UInt8]) -> [UInt8] {
    var tag = [UInt8](repeating: 0, count: 32)
    var length = 0
    let ok = withNonNilBytes(message) { bytes, count in
        EVP_MAC_update(context, bytes, count) == 1 && EVP_MAC_final(context, &tag, &length, tag.count) == 1
    }
    guard ok, length == 32 else {
        fatalError("HMAC-SHA256 update/final failed: \(drainErrors())")
    }
    return tag
}

/// Calls `body` with a pointer that is never nil, even for an empty array: OpenSSL reads a
/// NULL key as "keep the old key" rather than "empty key".
private func withNonNilBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
    if bytes.isEmpty {
        var placeholder: UInt8 = 0
        return try body(&placeholder, 0)
    }
    return try bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else {
            var placeholder: UInt8 = 0
            return try body(&placeholder, 0)
        }
        return try body(base, buffer.count)
    }
}

/// Refuses to prompt: without a callback, OpenSSL asks for an encrypted key's passphrase on
/// the terminal, which would hang a server.
private func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ rwflag: Int32, _ userdata: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
