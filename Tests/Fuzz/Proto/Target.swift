// libFuzzer target for the protobuf decoder (`ProtoReader` and every message of
// proto/stream_preview.proto); scripts/fuzz.sh builds and runs it.
// Input: protobuf bytes, decoded as each message in turn.
import PreviewCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProto(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    roundTrip(StreamPreviewPostRequest.self, bytes)
    roundTrip(StreamPreviewCommitRequest.self, bytes)
    roundTrip(StreamPreviewPostResponse.self, bytes)
    roundTrip(FeedItem.self, bytes)
    roundTrip(FeedResponse.self, bytes)
    roundTrip(LikeResponse.self, bytes)
    roundTrip(ErrorResponse.self, bytes)
    return 0
}

/// A message decoded from any bytes re-encodes to canonical bytes that decode to the same
/// value and re-encode identically, and its JSON form decodes to the same value too.
func roundTrip<Message: WireMessage & Equatable>(_ type: Message.Type, _ bytes: [UInt8]) {
    guard let value = try? Message(protobuf: bytes) else { return }
    let encoded = value.protobufBytes()
    let decoded: Message
    do {
        decoded = try Message(protobuf: encoded)
    } catch {
        fatalError("\(Message.self): own encoding does not decode: \(error)")
    }
    check(decoded == value, "\(Message.self): \(decoded) after a round trip, was \(value)")
    check(decoded.protobufBytes() == encoded, "\(Message.self): encoding is not canonical")
    let json = value.jsonBytes()
    do {
        let fromJSON = try Message(json: json)
        check(fromJSON == value, "\(Message.self): JSON gives \(fromJSON), protobuf gave \(value)")
    } catch {
        fatalError("\(Message.self): own JSON \(String(decoding: json, as: UTF8.self)) does not decode: \(error)")
    }
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
