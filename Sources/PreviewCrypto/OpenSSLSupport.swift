// What every OpenSSL call here shares: fetched algorithms, error-queue draining, PEM input.
import COpenSSL

/// A failure inside OpenSSL (or input it rejected), with OpenSSL's own error text.
public struct CryptoError: Error, CustomStringConvertible {
    /// What was being done, then OpenSSL's error strings (`error:1E08010C:DECODER routines::unsupported`).
    public var message: String

    public init(message: String) { self.message = message }

    public var description: String { "crypto: \(message)" }

    /// Drains this thread's OpenSSL error queue into an error. The queue is per thread and
    /// sticky, so it is always emptied here; a later failure must not report a stale entry.
    static func fromQueue(_ context: String) -> CryptoError {
        CryptoError(message: "\(context): \(drainOpenSSLErrors())")
    }
}

/// Empties this thread's error queue, returning its entries oldest first.
@discardableResult
func drainOpenSSLErrors() -> String {
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
/// use and is ~25% slower, NOTES-C).
///
/// `@unchecked Sendable`: fetched `EVP_MD` / `EVP_MAC` objects are immutable and reference
/// counted atomically; OpenSSL documents them as shareable between threads (crypto(7),
/// "Fetching algorithms"). The wrapper exists only because `OpaquePointer` is not `Sendable`.
/// They are never freed: they live as long as the process.
struct FetchedAlgorithms: @unchecked Sendable {
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

/// Calls `body` with a pointer that is never nil, even for an empty array: OpenSSL reads a
/// NULL key as "keep the old key" rather than "empty key".
func withNonNilBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
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

enum PEMKind {
    case privateKey
    case publicKey
}

/// Decodes one PEM key; the caller owns (and frees) the returned `EVP_PKEY`.
func readPEMKey(_ pem: String, kind: PEMKind, context: String) throws -> OpaquePointer {
    var text = Array(pem.utf8)
    guard !text.isEmpty, text.count < Int(Int32.max) else {
        throw CryptoError(message: "\(context): PEM text is empty or too large")
    }
    let key: OpaquePointer? = try text.withUnsafeMutableBytes { buffer in
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
            throw CryptoError.fromQueue("\(context): BIO_new_mem_buf")
        }
        defer { BIO_free(bio) }
        switch kind {
        case .privateKey: return PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil)
        case .publicKey: return PEM_read_bio_PUBKEY(bio, nil, refusePassphrase, nil)
        }
    }
    text.removeAll()
    guard let key else {
        throw CryptoError.fromQueue("\(context): not a readable PEM key")
    }
    return key
}
