/// The canonical forms and key derivation shared by the SigV4 signer and verifier.
///
/// Follows AWS SigV4 "Create a canonical request", "Create a string to sign" and
/// "Calculate the signature" (the `kDate`/`kRegion`/`kService`/`kSigning` chain), with the
/// S3 rules for presigned URLs: the path is not normalised and the payload hash is the
/// literal `UNSIGNED-PAYLOAD`.
enum SigV4Canonical {
    static let algorithm = "AWS4-HMAC-SHA256"
    static let unsignedPayload = "UNSIGNED-PAYLOAD"
    static let terminator = "aws4_request"
    /// The longest `X-Amz-Expires` S3 accepts: seven days.
    static let expiresRange: ClosedRange<Int> = 1...604_800

    /// The query parameters the signer sets itself, in the order botocore emits them.
    enum Param {
        static let algorithm = "X-Amz-Algorithm"
        static let credential = "X-Amz-Credential"
        static let date = "X-Amz-Date"
        static let expires = "X-Amz-Expires"
        static let signedHeaders = "X-Amz-SignedHeaders"
        static let securityToken = "X-Amz-Security-Token"
        static let signature = "X-Amz-Signature"
        static let all: Set<String> = [algorithm, credential, date, expires, signedHeaders, securityToken, signature]
    }

    /// `<yyyymmdd>/<region>/<service>/aws4_request`.
    static func scope(date: String, region: String, service: String) -> String {
        "\(date)/\(region)/\(service)/\(terminator)"
    }

    /// The canonical URI: every path byte `UriEncode`d except `/`, no normalisation.
    static func uri(_ path: [UInt8]) -> String {
        SigV4Encoding.uriEncode(path, keepSlash: true)
    }

    /// `name=value` pairs (already encoded) sorted by name, then value, joined by `&`.
    static func query(_ encodedPairs: [(name: String, value: String)]) -> String {
        let sorted = encodedPairs.sorted { $0.name != $1.name ? $0.name < $1.name : $0.value < $1.value }
        return joinedPairs(sorted)
    }

    /// `name=value` pairs in their order, joined by `&`, built as bytes (URLs are built per
    /// upload, twice).
    static func joinedPairs(_ pairs: [(name: String, value: String)]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(pairs.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: pair.name.utf8)
            out.append(UInt8(ascii: "="))
            out.append(contentsOf: pair.value.utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lower-cased names, values trimmed with inner whitespace runs collapsed to one space,
    /// repeated names joined with `,`, sorted by name.
    static func headers(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        // A stable sort keeps repeated names in the order given, as the joined value needs.
        let sorted = fields.enumerated()
            .map { (name: $0.element.name.lowercased(), value: normaliseValue($0.element.value), order: $0.offset) }
            .sorted { $0.name != $1.name ? $0.name < $1.name : $0.order < $1.order }
        var merged: [(name: String, value: String)] = []
        merged.reserveCapacity(sorted.count)
        for field in sorted {
            if let last = merged.last, last.name == field.name {
                merged[merged.count - 1].value = last.value + "," + field.value
            } else {
                merged.append((name: field.name, value: field.value))
            }
        }
        return merged
    }

    /// `Trimall`: leading and trailing whitespace removed, inner runs become one space (as
    /// botocore's `' '.join(value.split())`).
    static func normaliseValue(_ value: String) -> String {
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        // Most values (types, lengths, dates) have no whitespace at all: nothing to do.
        guard value.utf8.contains(where: isSpace) else { return value }
        return value.utf8
            .split(whereSeparator: isSpace)
            .map { String(decoding: $0, as: UTF8.self) }
            .joined(separator: " ")
    }

    /// The canonical request text: method, URI, query, header lines, signed header names,
    /// payload hash, separated by newlines.
    static func request(
        method: String, uri: String, query: String, headers: [(name: String, value: String)], payloadHash: String
    ) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(
            method.utf8.count + uri.utf8.count + query.utf8.count + payloadHash.utf8.count + 8
                + headers.reduce(0) { $0 + 2 * $1.name.utf8.count + $1.value.utf8.count + 2 })
        for part in [method, uri, query] {
            out.append(contentsOf: part.utf8)
            out.append(UInt8(ascii: "\n"))
        }
        for header in headers {
            out.append(contentsOf: header.name.utf8)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: header.value.utf8)
            out.append(UInt8(ascii: "\n"))
        }
        out.append(UInt8(ascii: "\n"))
        for (index, header) in headers.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ";")) }
            out.append(contentsOf: header.name.utf8)
        }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: payloadHash.utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// `AWS4-HMAC-SHA256\n<amzdate>\n<scope>\n<hex sha256 of canonical request>`.
    static func stringToSign(
        amzDate: String, scope: String, canonicalRequest: String, crypto: any CryptoPrimitives
    ) -> String {
        let hash = Hex.encode(crypto.sha256(Array(canonicalRequest.utf8)))
        return "\(algorithm)\n\(amzDate)\n\(scope)\n\(hash)"
    }

    /// `kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")`.
    static func signingKey(
        secret: String, date: String, region: String, service: String, crypto: any CryptoPrimitives
    ) -> [UInt8] {
        let kDate = crypto.hmacSHA256(key: Array("AWS4\(secret)".utf8), message: Array(date.utf8))
        let kRegion = crypto.hmacSHA256(key: kDate, message: Array(region.utf8))
        let kService = crypto.hmacSHA256(key: kRegion, message: Array(service.utf8))
        return crypto.hmacSHA256(key: kService, message: Array(terminator.utf8))
    }

    /// The raw signature bytes: `HMAC(kSigning, stringToSign)`.
    static func signature(signingKey: [UInt8], stringToSign: String, crypto: any CryptoPrimitives) -> [UInt8] {
        crypto.hmacSHA256(key: signingKey, message: Array(stringToSign.utf8))
    }

    /// The `host` value botocore signs: `hostHeader` with the host name lower-cased. Nil when
    /// malformed.
    static func host(_ authority: String, scheme: String) -> String? {
        guard let host = hostHeader(authority, scheme: scheme) else { return nil }
        let hasUpper = host.utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        return hasUpper ? host.lowercased() : host
    }

    /// Bytes a host name in an authority cannot hold (besides controls and space).
    private static let forbiddenInHost: Set<UInt8> = [
        0x20, 0x7F, UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"),
        UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "\\"),
    ]

    /// The authority as an HTTP client sends it in `Host` (RFC 9110 §7.2, §4.2): as written,
    /// but without the port when it is the scheme's default (80 for http, 443 for https), which
    /// curl and WHATWG URL parsers (browsers) leave out. A signed `host` must be this value:
    /// the store computes the signature over the `Host` that arrives. Nil when the scheme is
    /// not http(s) or the authority is malformed.
    static func hostHeader(_ authority: String, scheme: String) -> String? {
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let name: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            name = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty {
                portText = nil
            } else {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else {
            if let colon = authority.utf8.firstIndex(of: UInt8(ascii: ":")) {
                let rest = authority[authority.index(after: colon)...]
                guard !rest.utf8.contains(UInt8(ascii: ":")) else { return nil }
                name = authority[..<colon]
                portText = rest
            } else {
                name = authority[...]
                portText = nil
            }
        }
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && !forbiddenInHost.contains($0) }) else { return nil }
        guard let portText else { return String(name) }
        guard (1...5).contains(portText.utf8.count),
            portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let port = Int(portText), port <= 65_535
        else { return nil }
        return port == defaultPort ? String(name) : "\(name):\(port)"
    }
}
