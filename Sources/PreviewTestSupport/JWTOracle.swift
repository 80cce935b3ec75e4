// Identity-provider tokens minted by PyJWT + cryptography (`scripts/jwt/mint.py` in the venv
// `scripts/jwt/setup-venv.sh` makes under .build): what a real provider would issue.
import Foundation

/// One token to mint: signed by `kid` (its prefix names the key type: rsa, ec, ed, rsa1024).
public struct OracleToken: Encodable, Sendable {
    public var kid: String
    public var claims: [String: OracleJSON]
    public var alg: String?
    public var headers: [String: OracleJSON]?
    /// `normal`, `none` (alg none, empty signature), `hmac-with-public-key` (algorithm confusion),
    /// `es256-high-s` (an ES256 signature with S above half the order; `normal` gives low S).
    public var mode: String?

    public init(
        kid: String, claims: [String: OracleJSON], alg: String? = nil, headers: [String: OracleJSON]? = nil,
        mode: String? = nil
    ) {
        self.kid = kid
        self.claims = claims
        self.alg = alg
        self.headers = headers
        self.mode = mode
    }
}

/// A JSON value for claims and headers.
public enum OracleJSON: Encodable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case string(String)
    case int(Int64)
    case array([OracleJSON])
    case object([String: OracleJSON])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(arrayLiteral elements: OracleJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, OracleJSON)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

public struct OracleAnswer: Sendable {
    /// The JWKS document of the requested keys, as PyJWT's `to_jwk` writes them.
    public var jwks: [UInt8]
    public var tokens: [String: String]
}

public enum JWTOracle {
    /// The venv, set up once per test process: suites running in parallel must not build it
    /// twice at the same time (the setup script replaces an incomplete venv).
    private static let venv: Result<Void, any Error> = Result {
        let setup: ProcessResult
        do {
            setup = try ProcessResult.run(
                ["/bin/bash", TestPaths.repositoryRoot + "/scripts/jwt/setup-venv.sh"], timeout: 600)
        } catch {
            throw ServiceProcessError("scripts/jwt/setup-venv.sh did not run: \(error)")
        }
        guard setup.status == 0 else {
            throw ServiceProcessError(
                "scripts/jwt/setup-venv.sh failed (\(setup.status)); the identity-provider tests need PyJWT from "
                    + "PyPI:\n\(setup.stderr.suffix(3000))")
        }
    }

    /// Mints `tokens` and the JWKS document of `jwks` with private keys kept in `keyDirectory`
    /// (made on first use, so a later call signs with the same keys: rotation). Throws, never
    /// skips, when PyJWT cannot be installed or run.
    public static func mint(
        keyDirectory: String, jwks: [String], tokens: [String: OracleToken]
    ) throws -> OracleAnswer {
        struct Request: Encodable {
            var keyDirectory: String
            var jwks: [String]
            var tokens: [String: OracleToken]

            enum CodingKeys: String, CodingKey {
                case keyDirectory = "key_dir"
                case jwks, tokens
            }
        }
        struct Answer: Decodable {
            var tokens: [String: String]
        }
        let root = TestPaths.repositoryRoot
        try venv.get()
        let input = try JSONEncoder().encode(Request(keyDirectory: keyDirectory, jwks: jwks, tokens: tokens))
        let run = try ProcessResult.run(
            [root + "/.build/jwt-venv/bin/python", root + "/scripts/jwt/mint.py"], timeout: 120, input: Array(input))
        guard run.status == 0 else { throw ServiceProcessError("mint.py failed (\(run.status)):\n\(run.stderr)") }
        let output = Data(run.stdout.utf8)
        let answer = try JSONDecoder().decode(Answer.self, from: output)
        // The document PyJWT wrote, members unchanged (JSONSerialization re-encodes it).
        let object = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        let jwksObject = object?["jwks"] ?? [:]
        let jwksBytes = try JSONSerialization.data(withJSONObject: jwksObject, options: [.sortedKeys])
        return OracleAnswer(jwks: Array(jwksBytes), tokens: answer.tokens)
    }
}
