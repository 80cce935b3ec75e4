import PreviewCore
import ProtobufWire
import Testing

/// Truncation and fuzzing: decoding arbitrary bytes throws or succeeds, never traps.
@Suite("Wire: hostile protobuf input")
struct WireHostileInputTests {
    /// Decodes `bytes` as every message type; where that succeeds, re-encoding and
    /// decoding again must give the same value.
    static func decodeAsEveryMessage(_ bytes: [UInt8]) {
        func check<Message: WireMessage & Equatable>(_: Message.Type) {
            guard let value = try? Message(protobuf: bytes) else { return }
            #expect((try? Message(protobuf: value.protobufBytes())) == value, "input \(bytes.hex)")
        }
        check(StreamPreviewPostRequest.self)
        check(StreamPreviewPostResponse.self)
        check(StreamPreviewCommitRequest.self)
        check(FeedItem.self)
        check(FeedResponse.self)
        check(LikeResponse.self)
        check(ErrorResponse.self)
    }

    @Test func everyStrictPrefixOfASingleFieldMessageThrows() {
        let bytes = FeedResponse(items: [WireSamples.feedItem]).protobufBytes()
        for length in 1..<bytes.count {
            #expect(throws: WireError.self, "prefix of \(length) bytes") {
                try FeedResponse(protobuf: Array(bytes[..<length]))
            }
        }
    }

    @Test func everyPrefixOfAMultiFieldMessageThrowsUnlessItEndsOnAFieldBoundary() throws {
        let bytes = WireSamples.postResponse.protobufBytes()
        var boundaries = 0
        for length in 0..<bytes.count {
            let prefix = Array(bytes[..<length])
            do {
                let decoded = try StreamPreviewPostResponse(protobuf: prefix)
                #expect(decoded.protobufBytes() == prefix, "prefix of \(length) bytes decoded to something else")
                boundaries += 1
            } catch {
                // Thrown as WireError by the typed-throws signature; nothing else to check.
            }
        }
        // Empty, after fields 1-4, and after each of the 5 map entries.
        #expect(boundaries == 9)
    }

    @Test func twentyThousandRandomInputsNeverCrashTheDecoders() {
        var random = SplitMix64(state: 0x5EED_0001)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...48, using: &random)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            Self.decodeAsEveryMessage(bytes)
        }
    }

    @Test func twentyThousandMutationsOfValidMessagesNeverCrashTheDecoders() {
        var random = SplitMix64(state: 0x5EED_0002)
        let seeds = [
            WireSamples.postRequest.protobufBytes(), WireSamples.postResponse.protobufBytes(),
            WireSamples.feedResponse.protobufBytes(), WireSamples.errorResponse.protobufBytes(),
        ]
        for round in 0..<20_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: position)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
                }
                if bytes.isEmpty { break }
            }
            Self.decodeAsEveryMessage(bytes)
        }
    }
}
