import PreviewCrypto

// libFuzzer target for the SigV4 presigned-URL verifier (Sources/PreviewCore/Signing), with the
// real HMAC and SHA-256 of PreviewCrypto; scripts/fuzz.sh builds and runs it.
// Input: one mode byte, then lines (`\n`):
//   mode 0: `<method>`, `<raw path>?<raw query>`, then header lines `<name>: <value>`;
//           verified as received (mostly refused for the signature: exercises parsing);
//   mode 1: the same, but the `X-Amz-Signature` is replaced here by the correct one, so
//           mutations reach the checks after the signature;
//   mode 2: `<method>`, `<path>`, `<header value>`, `<query name>`, `<query value>`: presigned
//           by `SigV4Signer` and verified; what the signer signs must verify.
@testable import PreviewCore

let crypto = OpenSSLCrypto()
let secret = "fuzz-local-secret"
let accessKey = LocalStoreSigner.accessKeyId
let verifier = SigV4Verifier(region: LocalStoreSigner.region, service: LocalStoreSigner.service, crypto: crypto)
let now: Int64 = 1_700_000_100

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSigV4(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let lines = String(decoding: input.dropFirst(), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    switch mode % 3 {
    case 0: verifyAsReceived(lines, resign: false)
    case 1: verifyAsReceived(lines, resign: true)
    default: signThenVerify(lines)
    }
    return 0
}

func verifyAsReceived(_ lines: [String], resign: Bool) {
    guard lines.count >= 2 else { return }
    let method = lines[0]
    let target = lines[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    let rawPath = String(target[0])
    var rawQuery = target.count > 1 ? String(target[1]) : ""
    var headers = HTTPHeaders()
    for line in lines.dropFirst(2) {
        let field = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        headers.add(String(field[0]), field.count > 1 ? String(field[1]) : "")
    }
    if resign {
        guard let query = resigned(method: method, rawPath: rawPath, rawQuery: rawQuery, headers: headers) else {
            return
        }
        rawQuery = query
    }
    let result = verifier.verify(
        method: method, rawPath: rawPath, rawQuery: rawQuery, headers: headers, now: now,
        secretForAccessKey: { $0 == accessKey ? secret : nil })
    switch result {
    case .success(let info):
        check(info.signedHeaders["host"] != nil, "host not signed: \(info)")
        check(info.signingTime - verifier.allowedClockSkew <= now && now < info.expiresAt, "not current: \(info)")
        check(info.expiresAt - info.signingTime <= 604_800, "valid longer than 7 days: \(info)")
        check(info.method == method && info.accessKeyId == accessKey, "wrong method or key: \(info)")
    case .failure(.signatureMismatch):
        check(!resign, "a correctly signed request was refused: \(method) \(rawPath)?\(rawQuery)")
    case .failure:
        break
    }
}

/// `rawQuery` without its `X-Amz-Signature` parameters, plus the signature the verifier's key
/// gives for the canonical request the verifier computes; nil when the query is malformed.
func resigned(method: String, rawPath: String, rawQuery: String, headers: HTTPHeaders) -> String? {
    let signatureName = SigV4Canonical.Param.signature
    let kept = rawQuery.split(separator: "&", omittingEmptySubsequences: false).filter { piece in
        let name = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return PercentDecoding.strict(name, plusIsSpace: true) != Array(signatureName.utf8)
    }
    let placeholder = (kept + ["\(signatureName)=\(String(repeating: "0", count: 64))"]).joined(separator: "&")
    guard case .success(let parameters) = SigV4QueryParser.parse(placeholder),
        case .success(let auth) = SigV4AuthParameters.parse(parameters),
        case .success(let canonical) = verifier.canonicalRequest(
            method: method, rawPath: rawPath, rawQuery: placeholder, headers: headers)
    else { return nil }
    let key = SigV4Canonical.signingKey(
        secret: secret, date: auth.date, region: auth.region, service: auth.service, crypto: crypto)
    let stringToSign = SigV4Canonical.stringToSign(
        amzDate: auth.amzDate, scope: SigV4Canonical.scope(date: auth.date, region: auth.region, service: auth.service),
        canonicalRequest: canonical, crypto: crypto)
    let signature = Hex.encode(
        SigV4Canonical.signature(signingKey: key, stringToSign: stringToSign, crypto: crypto))
    return (kept + ["\(signatureName)=\(signature)"]).joined(separator: "&")
}

/// What `SigV4Signer` presigns verifies, binding the same path, header and query values.
func signThenVerify(_ lines: [String]) {
    guard lines.count >= 5 else { return }
    let (method, path, headerValue, queryName, queryValue) = (lines[0], "/" + lines[1], lines[2], lines[3], lines[4])
    let host = "127.0.0.1:8080"
    var request = SigV4PresignRequest(
        method: method, scheme: "http", host: host, path: path, signedHeaders: [(name: "x-fuzz", value: headerValue)],
        region: LocalStoreSigner.region, service: LocalStoreSigner.service, signingTime: now - 100, expiresSeconds: 900)
    if !queryName.isEmpty { request.extraQuery = [(name: queryName, value: queryValue)] }
    let signer = SigV4Signer(
        credentials: SigV4Credentials(accessKeyId: accessKey, secretAccessKey: secret), crypto: crypto)
    guard let url = try? signer.presign(request) else { return }

    let prefix = "http://\(host)"
    check(url.hasPrefix(prefix), "URL \(url) does not start with \(prefix)")
    let target = url.dropFirst(prefix.count).split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    check(target.count == 2, "URL \(url) has no query")
    let result = verifier.verify(
        method: method, rawPath: String(target[0]), rawQuery: String(target[1]),
        headers: HTTPHeaders([("Host", host), ("X-Fuzz", headerValue)]), now: now,
        secretForAccessKey: { $0 == accessKey ? secret : nil })
    guard case .success(let info) = result else {
        fatalError("presigned \(url) (header value \(headerValue.debugDescription)) is refused: \(result)")
    }
    check(info.path == Array(path.utf8), "path \(info.path) verified, \(Array(path.utf8)) signed")
    check(info.signedHeaders["x-fuzz"] == SigV4Canonical.normaliseValue(headerValue), "header \(info.signedHeaders)")
    let expected = queryName.isEmpty ? [] : [SigV4QueryParameter(name: queryName, value: queryValue)]
    check(info.extraQuery == expected, "query \(info.extraQuery) verified, \(expected) signed")
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
