/// The `X-Amz-*` parameters of a presigned request, validated (AWS S3 API reference,
/// "Authenticating Requests: Using Query Parameters", table of query parameters).
struct SigV4AuthParameters {
    var accessKeyId: String
    /// `yyyymmdd` of the credential scope.
    var date: String
    var region: String
    var service: String
    var amzDate: String
    var signingTime: Int64
    var expires: Int
    /// Lower-case, strictly ascending, always holding `host`.
    var signedHeaders: [String]
    var sessionToken: String?
    var signature: [UInt8]

    typealias Param = SigV4Canonical.Param

    /// Each auth parameter at most once; values well-formed; the date in `X-Amz-Date`
    /// equal to the scope's date.
    static func parse(_ parameters: [SigV4QueryParser.Parameter]) -> Result<Self, SigV4VerificationFailure> {
        var values: [String: String] = [:]
        for parameter in parameters where Param.all.contains(parameter.nameText) {
            let name = parameter.nameText
            guard values[name] == nil else { return .failure(.malformed("duplicate \(name)")) }
            guard let value = String(validating: parameter.value, as: UTF8.self) else {
                return .failure(.malformed("\(name) is not UTF-8"))
            }
            values[name] = value
        }
        for name in [
            Param.algorithm, Param.credential, Param.date, Param.expires, Param.signedHeaders, Param.signature,
        ]
        where values[name] == nil {
            return .failure(.malformed("missing \(name)"))
        }
        guard values[Param.algorithm] == SigV4Canonical.algorithm else {
            return .failure(.malformed("unsupported \(Param.algorithm)"))
        }

        let scope = values[Param.credential, default: ""].split(separator: "/", omittingEmptySubsequences: false)
        guard scope.count == 5, scope.allSatisfy({ !$0.isEmpty }), scope[4] == SigV4Canonical.terminator else {
            return .failure(.malformed("\(Param.credential) is not <key>/<date>/<region>/<service>/aws4_request"))
        }
        let amzDate = values[Param.date, default: ""]
        guard let signingTime = SigV4Time.parseAmzDate(amzDate) else {
            return .failure(.malformed("\(Param.date) is not yyyyMMddTHHmmssZ"))
        }
        guard amzDate.prefix(8) == scope[1] else {
            return .failure(.malformed("\(Param.date) does not match the credential scope date"))
        }

        let expiresText = values[Param.expires, default: ""]
        guard (1...6).contains(expiresText.utf8.count),
            expiresText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let expires = Int(expiresText), SigV4Canonical.expiresRange.contains(expires)
        else { return .failure(.malformed("\(Param.expires) must be 1...604800")) }

        let headerNames = values[Param.signedHeaders, default: ""]
            .split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard headerNames.allSatisfy({ !$0.isEmpty && $0 == $0.lowercased() }),
            zip(headerNames, headerNames.dropFirst()).allSatisfy({ $0 < $1 }),
            headerNames.contains("host")
        else {
            return .failure(.malformed("\(Param.signedHeaders) must be sorted lower-case names including host"))
        }

        let signatureText = values[Param.signature, default: ""]
        guard signatureText.utf8.count == 64, let signature = Hex.decodeLowercase(signatureText) else {
            return .failure(.malformed("\(Param.signature) must be 64 lower-case hex digits"))
        }

        return .success(
            SigV4AuthParameters(
                accessKeyId: String(scope[0]), date: String(scope[1]), region: String(scope[2]),
                service: String(scope[3]), amzDate: amzDate, signingTime: signingTime, expires: expires,
                signedHeaders: headerNames, sessionToken: values[Param.securityToken], signature: signature))
    }
}
