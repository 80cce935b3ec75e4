import PreviewTestSupport
import Testing

@testable import PreviewCore

/// `JSONWriter` against the reference: the configured `JSONEncoder` (`WireJSON.encode`) of the
/// same messages' DTOs, over generated messages full of awkward strings.
@Suite("Wire: JSON writer is byte-identical to JSONEncoder")
struct WireJSONWriterTests {
    static let rounds = 300

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test(arguments: [UInt64(1), 2, 3])
    func everyMessageIsWrittenAsJSONEncoderWritesItsDTO(seed: UInt64) {
        var generate = SeededGenerator(seed: seed)
        for round in 0..<Self.rounds {
            let post = generate.postRequest()
            #expect(post.jsonBytes() == WireJSON.encode(post.dto), "seed \(seed) round \(round): \(post)")
            let response = generate.postResponse()
            #expect(
                Self.text(response.jsonBytes()) == Self.text(WireJSON.encode(response.dto)),
                "seed \(seed) round \(round)")
            let commit = generate.commitRequest()
            #expect(commit.jsonBytes() == WireJSON.encode(commit.dto), "seed \(seed) round \(round): \(commit)")
            let feed = generate.feedResponse()
            #expect(feed.jsonBytes() == WireJSON.encode(feed.dto), "seed \(seed) round \(round): \(feed)")
            let item = generate.feedItem()
            #expect(item.jsonBytes() == WireJSON.encode(item.dto), "seed \(seed) round \(round): \(item)")
            let like = generate.likeResponse()
            #expect(like.jsonBytes() == WireJSON.encode(like.dto), "seed \(seed) round \(round): \(like)")
            let error = generate.errorResponse()
            #expect(error.jsonBytes() == WireJSON.encode(error.dto), "seed \(seed) round \(round): \(error)")
        }
    }

    @Test func everyControlCharacterAndTheSpecialCharactersAreEscapedAsJSONEncoderEscapesThem() {
        for value in 0..<0x80 {
            let scalar = Unicode.Scalar(UInt8(value))
            let error = ErrorResponse(code: "a\(scalar)b")
            #expect(error.jsonBytes() == WireJSON.encode(error.dto), "U+\(String(value, radix: 16))")
        }
        let spelled = ErrorResponse(code: "\u{0}\u{1F}\u{8}\u{C}\n\r\t\"\\/\u{7F}é")
        #expect(Self.text(spelled.jsonBytes()).hasPrefix(#"{"code":"\u0000\u001f\b\f\n\r\t\"\\/\#u{7F}é""#))
    }

    @Test func mapKeysAreSortedByTheirUTF8BytesNotCaseInsensitivelyOrNumerically() {
        let response = StreamPreviewPostResponse(movieHeaders: ["b": "1", "B": "2", "a10": "3", "a2": "4", "é": "5"])
        #expect(
            Self.text(response.jsonBytes()).contains(#""movieHeaders":{"B":"2","a10":"3","a2":"4","b":"1","é":"5"}"#))
        #expect(response.jsonBytes() == WireJSON.encode(response.dto))
    }

    @Test(arguments: [UInt64(7), 8])
    func tokenHeadersAndClaimsAreWrittenAsJSONEncoderWritesThem(seed: UInt64) {
        var generate = SeededGenerator(seed: seed)
        for round in 0..<Self.rounds {
            let header = JWTJSON.Header(
                alg: generate.bool() ? generate.string() : nil, kid: generate.bool() ? generate.string() : nil,
                typ: generate.bool() ? "JWT" : nil)
            #expect(header.jsonBytes() == WireJSON.encode(header), "seed \(seed) round \(round)")
            let payload = JWTJSON.Payload(
                sub: generate.bool() ? generate.string() : nil, role: generate.bool() ? generate.string() : nil,
                streamIds: generate.bool()
                    ? (0..<Int.random(in: 0...3, using: &generate)).map { _ in
                        JWTJSON.StreamIDClaim(generate.int64())
                    } : nil,
                iat: generate.bool() ? generate.int64() : nil, exp: generate.bool() ? generate.int64() : nil,
                nbf: generate.bool() ? generate.int64() : nil)
            #expect(payload.jsonBytes() == WireJSON.encode(payload), "seed \(seed) round \(round)")
        }
    }
}
