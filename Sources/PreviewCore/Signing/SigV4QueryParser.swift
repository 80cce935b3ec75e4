/// Strict parsing of a raw (still percent-encoded) query string into byte pairs.
///
/// `&` separates parameters and the first `=` splits name from value; a parameter without
/// `=` has an empty value. Empty parameters (`a=1&&b=2`, a trailing `&`) and broken escapes
/// are refused. `+` decodes to a space, the form convention, so a client that turned
/// `%20` into `+` still verifies.
enum SigV4QueryParser {
    struct Parameter {
        var name: [UInt8]
        var value: [UInt8]

        /// The name as text (lossy for non-UTF-8 bytes, which never match an auth name).
        var nameText: String { String(decoding: name, as: UTF8.self) }
    }

    static func parse(_ rawQuery: String) -> Result<[Parameter], SigV4VerificationFailure> {
        guard !rawQuery.isEmpty else { return .failure(.malformed("no query string")) }
        var parameters: [Parameter] = []
        for piece in rawQuery.split(separator: "&", omittingEmptySubsequences: false) {
            guard !piece.isEmpty else { return .failure(.malformed("empty query parameter")) }
            let rawName: Substring
            let rawValue: Substring
            if let equals = piece.firstIndex(of: "=") {
                rawName = piece[..<equals]
                rawValue = piece[piece.index(after: equals)...]
            } else {
                rawName = piece
                rawValue = ""
            }
            guard !rawName.isEmpty else { return .failure(.malformed("query parameter without a name")) }
            guard let name = PercentDecoding.strict(rawName, plusIsSpace: true),
                let value = PercentDecoding.strict(rawValue, plusIsSpace: true)
            else { return .failure(.malformed("invalid percent-encoding in the query")) }
            parameters.append(Parameter(name: name, value: value))
        }
        return .success(parameters)
    }
}
