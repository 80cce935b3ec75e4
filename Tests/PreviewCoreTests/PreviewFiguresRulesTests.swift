import Foundation
import PreviewCore
import Testing

/// The pure rules of figures and tracking links: which watch URLs are stored, which clients are
/// link previewers, the download link's disposition, the figures' wire forms.
@Suite("Figures: watch URLs, link previewers, download names, wire forms")
struct PreviewFiguresRulesTests {
    @Test(
        "https URLs with a host and listed app schemes are watch URLs; javascript:, data:, user parts, spaces, plain http and overlong ones are not"
    )
    func watchURLs() {
        let apps: Set<String> = ["myapp", "javascript"]
        for good in [
            "https://watch.example.com/live/42?x=1", "HTTPS://Watch.Example.com", "myapp://stream/42", "myapp:42",
        ] {
            #expect(WatchURL.problem(good, allowedSchemes: apps) == nil, "\(good)")
        }
        for bad in [
            "", "javascript:alert(1)", "data:text/html,x", "http://watch.example.com/", "https:///path",
            "https://user@watch.example.com/", "https://watch.example.com/a b", "https://watch.example.com/é",
            "watch.example.com/42", "//watch.example.com", "myapp:", "1app://x",
            "https://watch.example.com/" + String(repeating: "a", count: WatchURL.maxBytes),
        ] {
            #expect(WatchURL.problem(bad, allowedSchemes: apps) != nil, "\(bad)")
        }
        #expect(WatchURL.problem("http://127.0.0.1/", allowedSchemes: ["http"]) == nil)
    }

    @Test("Chat previewers and crawlers are previewers, a phone's browser is not, and no User-Agent counts as one")
    func previewers() {
        for agent in [
            "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "Twitterbot/1.0",
            "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "Mozilla/5.0 (compatible; Discordbot/2.0)",
            "TelegramBot (like TwitterBot)", "WhatsApp/2.23.20.0", "Mozilla/5.0 (compatible; Googlebot/2.1)", "",
            nil,
        ] {
            #expect(LinkPreviewers.isPreviewer(userAgent: agent), "\(agent ?? "nil")")
        }
        for agent in [
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile Safari/604.1",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0 Safari/537.36",
        ] {
            #expect(!LinkPreviewers.isPreviewer(userAgent: agent), "\(agent)")
        }
    }

    @Test("The download name says stream and version with the key's extension; only attachment or inline is answered")
    func dispositions() {
        #expect(
            AttachmentDisposition.value(streamId: 42, version: 3, key: "previews/42/abc/movie.mp4")
                == #"attachment; filename="stream-42-v3.mp4""#)
        #expect(AttachmentDisposition.isAcceptable(#"attachment; filename="stream-42-v3.mp4""#))
        #expect(AttachmentDisposition.isAcceptable("inline"))
        #expect(!AttachmentDisposition.isAcceptable("attachment\r\nSet-Cookie: a=b"))
        #expect(!AttachmentDisposition.isAcceptable("form-data; name=x"))
    }

    static let figures = PreviewFigures(
        previewVersion: 2, liveFrom: 1_764_756_000, liveUntil: 1_764_756_600, impressions: 70, plays: 20, likes: 3,
        opens: 7, shares: 1, distinctImpressions: 50, distinctOpens: 5)

    @Test("The open rate is opens per distinct viewer shown, 0 before anyone was; stored fields read back")
    func figuresFields() throws {
        #expect(Self.figures.openRate == 0.14)
        #expect(PreviewFigures(previewVersion: 1, liveFrom: 5).openRate == 0)
        let stored = Dictionary(uniqueKeysWithValues: Self.figures.fields)
        #expect(PreviewFigures(previewVersion: 2, fields: stored) == Self.figures)
        #expect(PreviewFigures(previewVersion: 2, fields: ["likes": "3"]) == nil, "no liveFrom: no version")
    }

    @Test("A replacement's webhook carries the previous version's final figures, stored and sent")
    func webhookFinalFigures() throws {
        let event = WebhookEvent(
            id: "evt_0123456789abcdef0123456789abcdef", type: .replaced, createdAt: 1_764_756_600, streamId: 42,
            previewVersion: 3, uploadId: "u3", expiresAt: 1_764_757_200, previousVersion: 2, previousUploadId: "u2",
            finalFigures: Self.figures)
        #expect(WebhookEvent(fields: Dictionary(uniqueKeysWithValues: event.fields)) == event)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(event.jsonBody)) as? [String: Any])
        let final = try #require((object["data"] as? [String: Any])?["finalFigures"] as? [String: Any])
        #expect(final["opens"] as? String == "7")
        #expect(final["distinctImpressions"] as? String == "50")
        #expect(final["liveUntil"] as? String == "1764756600")
        #expect(final["openRate"] as? Double == 0.14)
    }

    @Test("The stats answer in protobuf matches protoc, the double included, and JSON reads back")
    func statsWire() throws {
        let live = PreviewFigures(previewVersion: 3, liveFrom: 1_764_756_600, impressions: 1)
        let response = StreamStatsResponse(
            streamId: 42, versions: [live, Self.figures], watchUrl: "https://w.example/42")
        let golden = try Protoc.encode(
            "StreamStatsResponse",
            text: """
                streamId: 42
                versions { previewVersion: 3 liveFrom: 1764756600 impressions: 1 }
                versions { previewVersion: 2 liveFrom: 1764756000 liveUntil: 1764756600 impressions: 70 plays: 20
                  likes: 3 opens: 7 shares: 1 distinctImpressions: 50 distinctOpens: 5 openRate: 0.14 }
                watchUrl: "https://w.example/42"
                """)
        #expect(response.protobufBytes() == golden)
        #expect(try StreamStatsResponse(protobuf: golden) == response)
        #expect(try StreamStatsResponse(json: response.jsonBytes()) == response)
        #expect(
            String(decoding: StreamStatsResponse(streamId: 1, versions: [live]).jsonBytes(), as: UTF8.self)
                == #"{"streamId":"1","versions":[{"distinctImpressions":"0","distinctOpens":"0","impressions":"1","#
                + #""likes":"0","liveFrom":"1764756600","liveUntil":"0","openRate":0.0,"opens":"0","plays":"0","#
                + #""previewVersion":"3","shares":"0"}],"watchUrl":""}"#)
    }
}
