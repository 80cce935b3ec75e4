/// The canonical forms of Google Cloud Storage V4 signing ("V4 signing process" in the
/// Cloud Storage docs: canonical requests, string-to-sign, HMAC signing key), matching
/// google-cloud-storage 3.x `_signing.generate_signed_url_v4` where the docs leave room.
enum GCSV4Canonical {
    static let rsaAlgorithm = "GOOG4-RSA-SHA256"
    static let hmacAlgorithm = "GOOG4-HMAC-SHA256"
    static let service = "storage"
    static let terminator = "goog4_request"
    static let unsignedPayload = "UNSIGNED-PAYLOAD"
    static let expiresRange: ClosedRange<Int> = 1...604_800

    enum Param {
        static let algorithm = "X-Goog-Algorithm"
        static let credential = "X-Goog-Credential"
        static let date = "X-Goog-Date"
        static let expires = "X-Goog-Expires"
        static let signedHeaders = "X-Goog-SignedHeaders"
        static let signature = "X-Goog-Signature"
        static let all: Set<String> = [algorithm, credential, date, expires, signedHeaders, signature]
    }

    /// `<yyyymmdd>/<region>/storage/goog4_request`.
    static func scope(date: String, region: String) -> String { "\(date)/\(region)/\(service)/\(terminator)" }

    /// Canonical headers ("Canonical headers"): names lower-cased and trimmed, values with
    /// whitespace runs collapsed to one space and trimmed (the SDK's `" ".join(v.split())`),
    /// repeated names joined with `,`, sorted by name.
    static func headers(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        SigV4Canonical.headers(
            fields.map { (name: SigV4Canonical.normaliseValue($0.name), value: $0.value) })
    }

    /// Canonical query string ("Canonical query string"): names and values percent-encoded
    /// (everything but `A-Z a-z 0-9 - . _ ~`), sorted by name then value, joined by `&`.
    /// The SDK sorts whole `name=value` strings; the two orders agree unless one parameter
    /// name is a prefix of another followed by a byte below `=`.
    static func query(_ pairs: [(name: String, value: String)]) -> String {
        SigV4Canonical.query(
            pairs.map { (name: SigV4Encoding.queryEncode($0.name), value: SigV4Encoding.queryEncode($0.value)) })
    }

    static func request(
        method: String, resource: String, query: String, headers: [(name: String, value: String)],
        payload: String
    ) -> String {
        SigV4Canonical.request(method: method, uri: resource, query: query, headers: headers, payloadHash: payload)
    }

    /// `<algorithm>\n<timestamp>\n<scope>\n<hex sha256 of the canonical request>`.
    static func stringToSign(
        algorithm: String, timestamp: String, scope: String, canonicalRequest: String, crypto: any CryptoPrimitives
    ) -> String {
        "\(algorithm)\n\(timestamp)\n\(scope)\n\(Hex.encode(crypto.sha256(Array(canonicalRequest.utf8))))"
    }

    /// HMAC keys ("Signing with HMAC"): `HMAC(HMAC(HMAC(HMAC("GOOG4" + secret, date), region),
    /// "storage"), "goog4_request")`.
    static func signingKey(secret: String, date: String, region: String, crypto: any CryptoPrimitives) -> [UInt8] {
        let kDate = crypto.hmacSHA256(key: Array("GOOG4\(secret)".utf8), message: Array(date.utf8))
        let kRegion = crypto.hmacSHA256(key: kDate, message: Array(region.utf8))
        let kService = crypto.hmacSHA256(key: kRegion, message: Array(service.utf8))
        return crypto.hmacSHA256(key: kService, message: Array(terminator.utf8))
    }
}
