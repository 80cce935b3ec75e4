/// The HMAC keys tokens may be signed with: the default for tokens without `kid`, and
/// named keys for rotation (RFC 7515 §4.1.4 `kid`).
public struct JWTKeySet: Sendable {
    /// The shortest HS256 secret accepted: RFC 7518 §3.2 requires a key at least as long as the
    /// hash output (256 bits); anything shorter can be guessed offline from one token.
    public static let minimumSecretBytes = 32

    public var defaultKey: [UInt8]
    public var keys: [String: [UInt8]]

    public init(defaultKey: [UInt8], keys: [String: [UInt8]] = [:]) {
        self.defaultKey = defaultKey
        self.keys = keys
    }

    /// Why a secret or a keys file is refused; `description` is the operator's message.
    public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Nil when `secret` is long enough to sign tokens, else what is wrong with it.
    public static func problem(withSecret secret: [UInt8]) -> String? {
        if secret.isEmpty { return "is empty; at least \(minimumSecretBytes) bytes are required" }
        guard secret.count >= minimumSecretBytes else {
            return "is \(secret.count) bytes; at least \(minimumSecretBytes) are required"
        }
        return nil
    }

    /// The named keys of a keys file: one `KID SECRET` per line (separated by spaces or tabs),
    /// blank lines and lines starting with `#` ignored. A kid is printable ASCII without spaces,
    /// `/`, `\` or `..` (`JWTKeyID`);
    /// each kid once; each secret at least `minimumSecretBytes` bytes.
    public static func parseKeyLines(_ text: String) throws(ConfigurationError) -> [String: [UInt8]] {
        var keys: [String: [UInt8]] = [:]
        // `\r\n` is one Character, so `isNewline` splits LF and CRLF files alike.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            let number = index + 1
            guard fields.count == 2 else {
                throw ConfigurationError("line \(number): expected 'KID SECRET', found \(fields.count) fields")
            }
            let kid = String(fields[0])
            guard kid.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw ConfigurationError("line \(number): the kid must be printable ASCII")
            }
            // Token headers with such a kid are refused before any key is looked up.
            guard JWTKeyID.isValid(kid) else {
                throw ConfigurationError(
                    "line \(number): the kid must be at most \(JWTKeyID.maxLength) characters without / \\ or ..")
            }
            guard keys[kid] == nil else { throw ConfigurationError("line \(number): kid '\(kid)' appears twice") }
            let secret = Array(fields[1].utf8)
            if let problem = problem(withSecret: secret) {
                throw ConfigurationError("line \(number): the secret of kid '\(kid)' \(problem)")
            }
            keys[kid] = secret
        }
        return keys
    }
}
