// libFuzzer target for the JSON decoding (`JSONDecoder` through `WireJSON` and the message DTOs,
// and the strict token reader `JSONValue` / `JSONObjectReader`); scripts/fuzz.sh builds and runs it.
// Input: a JSON body, decoded as each message in turn (each must round-trip), and as a token's
// header and claims (strict reader: what it reads, `JSONDecoder` reads the same).
@testable import PreviewCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    agreeOnToken(bytes)
    roundTrip(StreamPreviewPostRequest.self, bytes)
    roundTrip(StreamPreviewCommitRequest.self, bytes)
    roundTrip(StreamPreviewPostResponse.self, bytes)
    roundTrip(FeedResponse.self, bytes)
    roundTrip(LikeResponse.self, bytes)
    roundTrip(ErrorResponse.self, bytes)
    return 0
}

/// A message decoded from any JSON re-encodes to JSON that decodes to the same value and
/// re-encodes identically, and its protobuf form decodes to the same value too.
func roundTrip<Message: WireMessage & Equatable>(_ type: Message.Type, _ bytes: [UInt8]) {
    guard let value = try? Message(json: bytes) else { return }
    let json = value.jsonBytes()
    let decoded: Message
    do {
        decoded = try Message(json: json)
    } catch {
        fatalError("\(Message.self): own JSON \(String(decoding: json, as: UTF8.self)) does not decode: \(error)")
    }
    check(decoded == value, "\(Message.self): \(decoded) after a JSON round trip, was \(value)")
    check(decoded.jsonBytes() == json, "\(Message.self): JSON encoding is not deterministic")
    do {
        let fromProtobuf = try Message(protobuf: value.protobufBytes())
        check(fromProtobuf == value, "\(Message.self): protobuf gives \(fromProtobuf), JSON gave \(value)")
    } catch {
        fatalError("\(Message.self): own protobuf encoding does not decode: \(error)")
    }
}

/// The token parts, read strictly with no fallback: what the reader reads, `JSONDecoder` reads
/// the same (the reader refuses more: duplicate keys, a byte-order mark, UTF-16, float times).
func agreeOnToken(_ bytes: [UInt8]) {
    if let header = JWTJSON.header(bytes) {
        let reference = JWTJSON.decode(JWTJSON.Header.self, from: bytes)
        check(
            reference?.alg == header.alg && reference?.kid == header.kid && reference?.typ == header.typ
                && reference?.hasCritical == header.hasCritical, "token header differs from JSONDecoder's")
    }
    if let payload = JWTJSON.payload(bytes) {
        let reference = JWTJSON.decode(JWTJSON.Payload.self, from: bytes)
        check(
            reference?.sub == payload.sub && reference?.role == payload.role
                && reference?.streamIds?.map(\.value) == payload.streamIds?.map(\.value)
                && reference?.iat == payload.iat && reference?.exp == payload.exp && reference?.nbf == payload.nbf,
            "token claims differ from JSONDecoder's")
    }
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
