import Foundation
import PreviewTestSupport
import Testing

@testable import PreviewCore

/// What a streamer may say of a preview, checked as the upload request is; and BCP 47 language
/// tags, checked by the same rule proto/openapi.yaml's pattern states.
@Suite("Preview descriptions")
struct PreviewDescriptionTests {
    static func refusal(
        title: String = "", category: String = "", language: String = "", altText: String = ""
    ) -> APIError? {
        if case .failure(let error) = PreviewDescription(
            title: title, category: category, language: language, mature: false, altText: altText
        ).validated() {
            return error
        }
        return nil
    }

    @Test func aGoodDescriptionIsKeptWithTheLanguageInCanonicalCase() throws {
        let description = try PreviewDescription(
            title: "Late-night synth jam 🎹", category: "music", language: "zh-hant-tw", mature: true,
            altText: "Two hands on a keyboard under purple light"
        ).validated().get()
        #expect(
            description
                == PreviewDescription(
                    title: "Late-night synth jam 🎹", category: "music", language: "zh-Hant-TW", mature: true,
                    altText: "Two hands on a keyboard under purple light"))
        #expect(try PreviewDescription().validated().get().isEmpty)
    }

    @Test(arguments: [
        ("title", "a\u{7}bell", "control characters (found U+0007)"),
        ("title", "line\nbreak", "control characters (found U+000A)"),
        ("title", "bidi \u{202E}override", "control characters (found U+202E)"),
        ("title", String(repeating: "x", count: 141), "141 characters long; at most 140"),
        ("category", "Music", "lower-case letters"), ("category", "-music", "inner hyphens"),
        ("category", "music video", "lower-case letters"), ("category", String(repeating: "a", count: 41), "1 to 40"),
        ("language", "english!", "BCP 47"), ("language", "en--us", "BCP 47"), ("language", "i-klingon", "BCP 47"),
        ("altText", String(repeating: "é", count: 501), "501 characters long"),
        ("altText", "tab\there", "control characters"),
    ])
    func aBadValueIsRefusedNamingItsField(field: String, value: String, said: String) throws {
        let error = try #require(
            Self.refusal(
                title: field == "title" ? value : "", category: field == "category" ? value : "",
                language: field == "language" ? value : "", altText: field == "altText" ? value : ""))
        #expect(error.code == .invalidArgument && error.status == 400)
        #expect(error.target == field)
        #expect(error.message.contains(said), "\(error.message)")
    }

    @Test func lengthsCountUnicodeScalarsAsJSONSchemaDoes() {
        // 140 scalars in 70 characters (each e + a combining acute accent) is the limit, not 70.
        let combining = String(repeating: "e\u{301}", count: 70)
        #expect(combining.count == 70 && combining.unicodeScalars.count == 140)
        #expect(Self.refusal(title: combining) == nil)
        #expect(Self.refusal(title: combining + "e") != nil)
    }

    @Test func theHooksMatureAndCategoryLabelsHaveTheLastWord() {
        let said = PreviewDescription(title: "t", category: "music", mature: false)
        #expect(said.labelled(by: ["mature": "true"]).mature)
        #expect(!PreviewDescription(mature: true).labelled(by: ["mature": "false"]).mature)
        #expect(PreviewDescription(mature: true).labelled(by: ["mature": "maybe"]).mature, "not a verdict")
        #expect(said.labelled(by: ["category": "gaming"]).category == "gaming")
        #expect(said.labelled(by: ["category": "Not A Slug"]).category == "music")
        #expect(said.labelled(by: ["rating": "general"]) == said)
    }

    @Test func theHookIsToldTheDescriptionWhenOneWasGiven() {
        var call = CommitHookCall(
            streamId: 1, uploadId: "u", subject: "s", movie: .init(url: "m", contentType: "video/mp4", bytes: 1),
            thumbnail: .init(url: "t", contentType: "image/jpeg", bytes: 1), durationMs: 0, width: 0, height: 0,
            urlsExpireAt: 0)
        #expect(!String(decoding: call.jsonBytes(), as: UTF8.self).contains("details"))
        call.details = PreviewDescription(title: "Hi \"you\"", category: "music", mature: true)
        #expect(
            String(decoding: call.jsonBytes(), as: UTF8.self).hasPrefix(
                #"{"details":{"altText":"","category":"music","language":"","mature":true,"title":"Hi \"you\""},"#))
    }

    @Test(arguments: [
        ("ja", "ja"), ("EN-us", "en-US"), ("zh-hant-tw", "zh-Hant-TW"), ("sr-latn-rs", "sr-Latn-RS"),
        ("es-419", "es-419"), ("de-ch-1901", "de-CH-1901"), ("zh-yue-hk", "zh-yue-HK"), ("x-private", "x-private"),
        ("en-a-bbb-x-a-ccc", "en-a-bbb-x-a-ccc"), ("hy-Latn-IT-arevela", "hy-Latn-IT-arevela"),
    ])
    func languageTagsAreWrittenInTheirCanonicalCase(tag: String, canonical: String) {
        #expect(LanguageTag.canonical(tag) == canonical)
    }

    /// The `language` pattern of the upload request in proto/openapi.yaml.
    static func documentedPattern() throws -> NSRegularExpression {
        let yaml = try String(contentsOfFile: TestPaths.repositoryRoot + "/proto/openapi.yaml", encoding: .utf8)
        let line = try #require(yaml.split(separator: "\n").first { $0.contains("pattern: '^$|^[Xx](") })
        let pattern = line.split(separator: "'", maxSplits: 1)[1].dropLast()
        return try NSRegularExpression(pattern: String(pattern))
    }

    @Test func theValidatorAndTheDocumentedPatternAgreeOnTwentyThousandTags() throws {
        let regex = try Self.documentedPattern()
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "en", "de", "zh", "sgn", "abcd", "abcde", "abcdefgh", "abcdefghi", "yue", "hant", "Latn", "US", "419",
            "1901", "1a2b", "abcde1", "a", "x", "b", "i", "bbb", "ab", "1", "12", "123", "", "e-", "ü",
        ]
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            let tag = (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)!
            }
            .joined(separator: "-")
            let range = NSRange(tag.startIndex..., in: tag)
            let documented = tag.utf16.count <= 64 && regex.firstMatch(in: tag, range: range) != nil
            // Empty is "no language", which the pattern admits and the validator never asks the tag parser about.
            let accepted = tag.isEmpty || LanguageTag.canonical(tag) != nil
            if documented != accepted { disagreements.append(tag) }
        }
        #expect(disagreements.isEmpty, "\(Set(disagreements).prefix(10))")
    }
}
