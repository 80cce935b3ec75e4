// The one error type of this target.

/// A failure inside OpenSSL (or input it rejected), with OpenSSL's own error text.
public struct CryptoError: Error, CustomStringConvertible {
    /// What was being done, then OpenSSL's error strings (`error:1E08010C:DECODER routines::unsupported`).
    public var message: String

    public init(message: String) { self.message = message }

    public var description: String { "crypto: \(message)" }
}
