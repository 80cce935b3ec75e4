import Foundation
import PreviewTestSupport
import Testing

@testable import PreviewCore

/// The strict reader of token parts against the reference, the configured `JSONDecoder`: a
/// part is read only where it is strict, and then as `JSONDecoder` reads it. (Request bodies
/// have one reader, `JSONDecoder` itself.)
@Suite("Wire: the token reader agrees with JSONDecoder")
struct WireJSONReaderTests {
    static func agree(_ bytes: [UInt8], _ note: String) {
        let text = String(decoding: bytes, as: UTF8.self)
        // Token parts are read strictly, with no fallback: what the reader reads, JSONDecoder
        // reads the same; what JSONDecoder refuses, the reader refuses too.
        if let header = JWTJSON.header(bytes) {
            let referenceHeader = JWTJSON.decode(JWTJSON.Header.self, from: bytes)
            #expect(referenceHeader.map(Self.describe) == Self.describe(header), "\(note): header \(text)")
        }
        if let payload = JWTJSON.payload(bytes) {
            let referencePayload = JWTJSON.decode(JWTJSON.Payload.self, from: bytes)
            #expect(referencePayload.map(Self.describe) == Self.describe(payload), "\(note): claims \(text)")
        }
    }

    static func describe(_ header: JWTJSON.Header) -> String {
        "\(String(describing: header.alg)) \(String(describing: header.kid)) \(String(describing: header.typ)) "
            + "\(header.hasCritical)"
    }

    static func describe(_ payload: JWTJSON.Payload) -> String {
        "\(String(describing: payload.sub)) \(String(describing: payload.role)) "
            + "\(String(describing: payload.streamIds?.map(\.value))) \(String(describing: payload.iat)) "
            + "\(String(describing: payload.exp)) \(String(describing: payload.nbf))"
    }

    /// Documents each of which takes another branch of the reader.
    static let corpus: [String] = [
        #"{"streamId":"42","movieBytes":"1048576","thumbnailBytes":"20000","movieContentType":"video/mp4","thumbnailContentType":"image/jpeg"}"#,
        #"{"streamId":42,"movieBytes":1048576,"uploadId":"0123456789abcdef0123456789abcdef"}"#,
        #" {"streamId" : -0 , "uploadId" : null } "#, #"{}"#, "{\"streamId\":\"7\"}\n",
        #"{"streamId":1e3,"movieBytes":5.0,"thumbnailBytes":100e-2}"#, #"{"streamId":1.5}"#,
        #"{"streamId":9223372036854775807}"#, #"{"streamId":9223372036854775808}"#,
        #"{"streamId":-9223372036854775809}"#,
        #"{"streamId":"9223372036854775808"}"#, #"{"streamId":"+1"}"#, #"{"streamId":"\u0034\u0032"}"#,
        #"{"streamId":true}"#, #"{"streamId":[]}"#, #"{"streamId":{}}"#, #"{"streamId":01}"#, #"{"streamId":-}"#,
        #"{"streamId":"1","streamId":"2"}"#, #"{"uploadId":"a","uploadId":5}"#, #"{"upload\u0049d":"x"}"#,
        #"{"uploadId":"\ud83c\udfac\u00e9\n\/\""}"#, #"{"uploadId":"\ud83c"}"#, #"{"uploadId":"\udfac"}"#,
        #"{"uploadId":"\u0000"}"#, #"{"uploadId":"\x"}"#, #"{"uploadId":"\u12"}"#, "{\"uploadId\":\"a\tb\"}",
        #"{"zzz":--1,"uploadId":"u"}"#, #"{"zzz":"\q","uploadId":"u"}"#, #"{"zzz":[1,{"a":[null,true,false]}]}"#,
        #"{"zzz":1e999999}"#, "\u{FEFF}{\"uploadId\":\"u\"}", "{\"uploadId\":\"u\"}\u{0}", #"[]"#, #"null"#, #""x""#,
        "", " ", "{", #"{"a":}"#, "{}{}", #"{"a" 1}"#, #"{"a":1,}"#, #"[1,]"#, "nul", "tru", #"{"a":tRue}"#,
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        #"{"a":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
        #"{"movieContentType":"vidéo/mp4","thumbnailContentType":"\u212A"}"#, #"{"uploadId":"K"}"#,
        #"{"alg":"HS256","typ":"JWT"}"#, #"{"alg":"HS256","kid":"k2","typ":"JWT","crit":null}"#,
        #"{"alg":null,"crit":["b64"]}"#, #"{"alg":5}"#, #"{"alg":"HS256","alg":"none"}"#,
        #"{"exp":1700003600,"iat":1700000000,"role":"streamer","stream_ids":["42",7],"sub":"alice"}"#,
        #"{"exp":1.7e9,"iat":"1700000000","stream_ids":[0]}"#, #"{"stream_ids":["-1"]}"#, #"{"stream_ids":[1.0]}"#,
        #"{"stream_ids":"42"}"#, #"{"stream_ids":null,"nbf":null,"sub":null}"#, #"{"nbf":-5,"sub":"\u00e9"}"#,
    ]

    @Test func everyCorpusPartIsReadAsJSONDecoderReadsItOrRefused() {
        for (index, body) in Self.corpus.enumerated() {
            Self.agree(Array(body.utf8), "corpus \(index)")
        }
        Self.agree([0x7B, 0x00, 0x22, 0x00, 0x7D, 0x00], "UTF-16LE")
        Self.agree(Array(#"{"uploadId":""#.utf8) + [0xFF] + Array(#""}"#.utf8), "invalid UTF-8")
    }

    @Test(arguments: [UInt64(11), 12, 13, 14])
    func mutatedPartsAreReadAsJSONDecoderReadsThemOrRefused(seed: UInt64) {
        var generate = SeededGenerator(seed: seed)
        let pieces: [[UInt8]] =
            [
                "\"", "\\", "{", "}", "[", "]", ",", ":", "0", "7", "-", "+", ".", "e", "E", "u", "\\u00", "\\ud83c",
                "null", "true", " ", "\n", "\u{0}", "é", "streamId", "uploadId", "stream_ids", "crit", "1e3",
            ].map { Array($0.utf8) } + [[0xFF], [0xC3]]
        for round in 0..<500 {
            var bytes = Self.corpus.randomElement(using: &generate).map { Array($0.utf8) } ?? []
            if generate.bool() { bytes = generate.postRequest().jsonBytes() }
            for _ in 0..<Int.random(in: 1...3, using: &generate) {
                let at = Int.random(in: 0...bytes.count, using: &generate)
                switch Int.random(in: 0..<3, using: &generate) {
                case 0: bytes.insert(contentsOf: pieces.randomElement(using: &generate) ?? [], at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default:
                    if at < bytes.count { bytes[at] = pieces.randomElement(using: &generate)?.first ?? 0x20 }
                }
            }
            Self.agree(bytes, "seed \(seed) round \(round)")
        }
    }
}
