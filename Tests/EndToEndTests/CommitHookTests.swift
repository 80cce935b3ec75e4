import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve --commit-hook-url`: a loopback hook that allows, labels, refuses, stalls, errors, and is
/// busy; what it is sent, and what commit answers and publishes for each.
@Suite("Moderation hook at commit")
struct CommitHookTests {
    @Test("An allowed commit publishes after a signed call with the upload's fields and working object URLs")
    func allowedCommitIsPublished() throws {
        let hook = try HookedService()
        let upload = try hook.upload(seed: 1)
        let committed = try hook.commit(upload)
        try #require(committed.status == 200, "\(committed.text)")
        let item = try committed.json(FeedItem.self)
        #expect(item.previewVersion == 1 && item.labels.isEmpty)
        #expect(!committed.text.contains("labels"), "no labels, no bytes: \(committed.text)")
        #expect(try hook.api.feedItems().map(\.previewVersion) == [1])

        let call = try #require(hook.receiver.requests.first)
        #expect(hook.receiver.requests.count == 1)
        #expect(call.method == "POST" && call.path == "/hook")
        #expect(call.header("Content-Type") == "application/json")
        let crypto = OpenSSLCrypto()
        #expect(call.signatureVerifies(secret: HookedService.secret, crypto: crypto), "the current secret signs it")
        #expect(call.signatureVerifies(secret: HookedService.oldSecret, crypto: crypto), "so does the old one")
        #expect(!call.signatureVerifies(secret: Array(repeating: 0x61, count: 32), crypto: crypto))
        var tampered = call
        tampered.body[tampered.body.count - 2] ^= 1
        #expect(!tampered.signatureVerifies(secret: HookedService.secret, crypto: crypto))

        let body = try call.jsonObject()
        #expect(body["type"] as? String == "preview.commit")
        #expect(body["streamId"] as? String == "42")
        #expect(body["uploadId"] as? String == upload.issued.uploadId)
        #expect(body["subject"] as? String == "sam")
        #expect(body["durationMs"] as? String == "7500")
        #expect(body["width"] as? Int == 320 && body["height"] as? Int == 180)
        let movie = try #require(body["movie"] as? [String: Any])
        let thumbnail = try #require(body["thumbnail"] as? [String: Any])
        #expect(movie["bytes"] as? String == String(upload.movie.count))
        #expect(movie["contentType"] as? String == "video/mp4")
        #expect(thumbnail["bytes"] as? String == String(upload.thumbnail.count))
        #expect(thumbnail["contentType"] as? String == "image/jpeg")
        let expiry = try #require((body["urlsExpireAt"] as? String).flatMap { Int64($0) })
        #expect(expiry > unixNow() && expiry <= unixNow() + 5 + 300 + 60, "short-lived: \(expiry)")
        #expect(try hook.api.send("GET", try #require(movie["url"] as? String)).body == upload.movie)
        #expect(try hook.api.send("GET", try #require(thumbnail["url"] as? String)).body == upload.thumbnail)

        let again = try hook.commit(upload)
        #expect(again.status == 200, "\(again.text)")
        #expect(try again.json(FeedItem.self).previewVersion == 1)
        #expect(hook.receiver.requests.count == 1, "an idempotent repeat does not ask the hook again")
    }

    @Test("Labels of the hook's answer are stored with the preview and served in JSON and protobuf feeds")
    func labelsAreServed() throws {
        // "likes": "0" spells the feed template's marker for the likes count inside the labels.
        let labels = ["rating": "general", "likes": "0", "lang": "ü"]
        let hook = try HookedService(
            script: [.json(#"{"allow":true,"labels":{"rating":"general","likes":"0","lang":"\u00fc"},"x":[1]}"#)])
        let committed = try hook.commit(try hook.upload(seed: 1))
        try #require(committed.status == 200, "\(committed.text)")
        #expect(try committed.json(FeedItem.self).labels == labels)

        let viewer = try hook.service.token(sub: "ann", role: "viewer")
        #expect(try hook.api.send("POST", "/api/streams/42/like", token: viewer).status == 200)
        let item = try #require(try hook.api.feedItems(token: viewer).first)
        #expect(item.labels == labels)
        #expect(item.likes == 1 && item.liked, "the per-viewer values are spliced where they belong")
        let protobuf = try hook.api.feed(token: viewer, headers: [("Accept", "application/x-protobuf")])
        try #require(protobuf.status == 200)
        let decoded = try #require(try protobuf.protobuf(FeedResponse.self).items.first)
        #expect(decoded.labels == labels && decoded.likes == 1 && decoded.liked)

        let replaced = try hook.commit(try hook.upload(seed: 2))
        try #require(replaced.status == 200, "\(replaced.text)")
        let next = try #require(try hook.api.feedItems().first)
        #expect(next.previewVersion == 2 && next.labels.isEmpty, "a new version carries only its own labels")
    }

    @Test(
        "A refusal is 422 rejected_by_hook with the reason; the live preview stays; a retry is refused without a call")
    func refusalKeepsThePreviousVersion() throws {
        let hook = try HookedService()
        let first = try hook.commit(try hook.upload(seed: 1))
        try #require(first.status == 200, "\(first.text)")
        let live = try first.json(FeedItem.self)

        hook.receiver.answer(
            [.json(#"{"allow":false,"reason":"the clip shows a phone number"}"#)], otherwise: .json(#"{"allow":true}"#))
        let upload = try hook.upload(seed: 2)
        let refused = try hook.commit(upload)
        expectError(refused, status: 422, code: "rejected_by_hook")
        #expect(try refused.json(ErrorResponse.self).message == "the clip shows a phone number")
        let feed = try hook.api.feedItems()
        #expect(feed.map(\.previewVersion) == [1] && feed.first?.movieUrl == live.movieUrl)

        let again = try hook.commit(upload)
        expectError(again, status: 422, code: "rejected_by_hook")
        #expect(try again.json(ErrorResponse.self).message == "the clip shows a phone number")
        #expect(
            hook.receiver.requests.count == 2, "the refusal kept with the upload answers, though the hook would allow")
        #expect(try hook.api.feedItems().map(\.previewVersion) == [1])
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="refused"}"#) == "1")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="remembered"}"#) == "1")

        let next = try hook.commit(try hook.upload(seed: 3))
        #expect(next.status == 200, "another upload of the stream is asked about: \(next.text)")
        #expect(try hook.api.feedItems().map(\.previewVersion) == [2])
    }

    @Test("The hook sees the description, and its mature and category labels have the last word on them")
    func labelsOverrideMatureAndCategory() throws {
        let hook = try HookedService(
            script: [
                .json(#"{"allow":true,"labels":{"mature":"true","category":"talk","rating":"teen"}}"#),
                .json(#"{"allow":true,"labels":{"mature":"false"}}"#),
            ])
        let said = PreviewDescription(
            title: "Chat", category: "music", language: "de", mature: false, altText: "A face")
        let first = try hook.commit(try hook.upload(seed: 1, details: said))
        try #require(first.status == 200, "\(first.text)")
        let item = try first.json(FeedItem.self)
        #expect(
            item.details
                == PreviewDescription(title: "Chat", category: "talk", language: "de", mature: true, altText: "A face"))
        #expect(item.labels == ["mature": "true", "category": "talk", "rating": "teen"])
        let body = try #require(try hook.receiver.requests.first?.jsonObject())
        let details = try #require(body["details"] as? [String: Any], "\(body)")
        #expect(details["title"] as? String == "Chat" && details["category"] as? String == "music")
        #expect(details["mature"] as? Bool == false && details["language"] as? String == "de")

        var adult = said
        adult.mature = true
        let second = try hook.commit(try hook.upload(seed: 2, details: adult))
        try #require(second.status == 200, "\(second.text)")
        #expect(try hook.api.feedItems().first?.details.mature == false, "the hook's false clears the streamer's true")
        #expect(try hook.api.feedItems().first?.details.category == "music")
    }

    @Test("The refusal is kept in Redis with the upload: another replica answers it without a call")
    func refusalHoldsOnEveryReplica() throws {
        let hook = try HookedService(script: [.json(#"{"allow":false,"reason":"no phone numbers"}"#)], replicas: 2)
        let upload = try hook.upload(seed: 1)
        let replicas = hook.service.replicaURLs
        try #require(replicas.count == 2)
        for replica in replicas {
            let reply = try hook.api.send(
                "POST", replica + "/api/preview/commit", headers: [("Content-Type", "application/json")],
                body: StreamPreviewCommitRequest(streamId: 42, uploadId: upload.issued.uploadId).jsonBytes(),
                token: hook.token)
            expectError(reply, status: 422, code: "rejected_by_hook")
            #expect(try reply.json(ErrorResponse.self).message == "no phone numbers", "\(replica)")
        }
        #expect(hook.receiver.requests.count == 1, "the second replica did not ask")
        #expect(try hook.api.feedItems().isEmpty)
    }

    @Test("With --commit-hook-recheck-refused a refused upload is asked about again; a failed look stays 503")
    func recheckRefusedAsksAgain() throws {
        let hook = try HookedService(
            arguments: ["--commit-hook-recheck-refused", "--commit-hook-fail-open", "--commit-hook-timeout", "1"],
            script: [.json(#"{"allow":false,"reason":"blurry"}"#), .stall(seconds: 8)])
        let upload = try hook.upload(seed: 1)
        expectError(try hook.commit(upload), status: 422, code: "rejected_by_hook")

        let stalled = try hook.commit(upload)
        expectError(stalled, status: 503, code: "hook_unavailable")
        #expect(hook.receiver.requests.count == 2, "asked again")
        #expect(try hook.api.feedItems().isEmpty, "fail-open does not publish what the hook refused")
        #expect(try hook.api.metricValue("streampreview_commit_hook_failed_open_total") == "0")

        let allowed = try hook.commit(upload)
        #expect(allowed.status == 200, "the hook's latest answer decides: \(allowed.text)")
        #expect(hook.receiver.requests.count == 3)
        #expect(try hook.api.feedItems().map(\.previewVersion) == [1])
    }

    @Test("A hook that stalls past --commit-hook-timeout: 503 hook_unavailable with Retry-After, nothing published")
    func stallFailsClosed() throws {
        let hook = try HookedService(arguments: ["--commit-hook-timeout", "1"], script: [.stall(seconds: 8)])
        let upload = try hook.upload(seed: 1)
        let stalled = try hook.commit(upload)
        expectError(stalled, status: 503, code: "hook_unavailable")
        #expect(stalled.headers["Retry-After"] == "1")
        #expect(try hook.api.feedItems().isEmpty)
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="timeout"}"#) == "1")

        let retried = try hook.commit(upload)
        #expect(retried.status == 200, "a retry once the hook answers publishes: \(retried.text)")
        #expect(try hook.api.feedItems().count == 1)
    }

    @Test(
        "A hook answer that is not a verdict is 503 hook_unavailable and publishes nothing",
        arguments: [
            ("HTTP 500", WebhookReceiver.Answer.json(#"{"allow":true}"#, status: 500)),
            ("not JSON", .respond(status: 200, body: Array("allow".utf8), contentType: "text/plain")),
            ("no allow", .json(#"{"labels":{}}"#)),
            ("duplicate allow", .json(#"{"allow":false,"allow":true}"#)),
            ("a label key out of its alphabet", .json(#"{"allow":true,"labels":{"Rating":"g"}}"#)),
            ("a label that is not a string", .json(#"{"allow":true,"labels":{"rating":1}}"#)),
            ("connection closed", .close),
        ])
    func brokenAnswerFailsClosed(name: String, answer: WebhookReceiver.Answer) throws {
        let hook = try HookedService(script: [answer])
        let reply = try hook.commit(try hook.upload(seed: 1))
        expectError(reply, status: 503, code: "hook_unavailable")
        #expect(reply.headers["Retry-After"] == "5", "\(name)")
        #expect(try hook.api.feedItems().isEmpty, "\(name)")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="error"}"#) == "1")
        #expect(hook.receiver.requests.count == 1)
    }

    @Test("With --commit-hook-fail-open a stalled hook does not hold the preview back")
    func failOpenPublishes() throws {
        let hook = try HookedService(
            arguments: ["--commit-hook-timeout", "1", "--commit-hook-fail-open"], script: [.stall(seconds: 8)])
        let committed = try hook.commit(try hook.upload(seed: 1))
        #expect(committed.status == 200, "\(committed.text)")
        #expect(try hook.api.feedItems().map(\.labels) == [[:]])
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="timeout"}"#) == "1")
        #expect(try hook.api.metricValue("streampreview_commit_hook_failed_open_total") == "1")
    }

    @Test("With two worker threads (one turn, no room to wait) another commit is 503 at once without a call")
    func busyHookIsNotCalledMore() throws {
        let gate = WebhookReceiver.Gate()
        let hook = try HookedService(
            arguments: ["--worker-threads", "2", "--commit-hook-timeout", "60"],
            script: [.held(gate, then: .json(#"{"allow":true}"#))])
        let token43 = try hook.service.token(sub: "sam", role: "streamer", streams: [43])
        let second = try hook.upload(seed: 2, streamId: 43, token: token43)
        let first = hook.commitInBackground(try hook.upload(seed: 1))
        try #require(eventually(within: 30) { hook.receiver.requests.count == 1 }, "the first commit calls the hook")

        let busy = try hook.api.commit(streamId: 43, uploadId: second.issued.uploadId, token: token43)
        expectError(busy, status: 503, code: "hook_unavailable")
        #expect(hook.receiver.requests.count == 1, "the second commit was not sent")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="busy"}"#) == "1")

        gate.open()
        #expect(try first.wait()?.status == 200)
        #expect(try hook.api.commit(streamId: 43, uploadId: second.issued.uploadId, token: token43).status == 200)
    }

    @Test(
        "serve refuses to start with a hook URL and no secret (64) or a secret under 32 bytes (78)",
        arguments: [
            ([String](), Int32(64), "--commit-hook-secret-file"),
            (["short"], Int32(78), "at least 32"),
        ])
    func weakSecretStopsServe(secretLines: [String], status: Int32, message: String) throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-hook")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var arguments = ["serve", "--port", "0", "--data-dir", directory + "/data"]
        arguments += ["--commit-hook-url", "http://127.0.0.1:9/hook"]
        if !secretLines.isEmpty {
            try Data(secretLines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: directory + "/secret"))
            arguments += ["--commit-hook-secret-file", directory + "/secret"]
        }
        let result = try ProcessResult.run([try ServiceProcess.binaryPath()] + arguments, timeout: 30)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stdout.contains("listening"))
    }
}

/// A server with `--commit-hook-url` pointing at a `WebhookReceiver` and a secret file holding the
/// current and the previous secret; streamer `sam` owns stream 42. One replica unless asked: the
/// hook's metrics and its turns are per process.
final class HookedService {
    static let secret = Array("hook-secret-0123456789abcdef-0123456789".utf8)
    static let oldSecret = Array("previous-hook-secret-0123456789abcdefgh".utf8)

    let receiver: WebhookReceiver
    let service: ServiceProcess
    let api: APIClient
    let token: String
    private let directory: String

    /// `script`: the receiver's first answers (then it allows).
    init(arguments: [String] = [], script: [WebhookReceiver.Answer] = [], replicas: Int = 1) throws {
        receiver = try WebhookReceiver(script: script)
        directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-hook")
        let secretFile = directory + "/hook-secret"
        let text = String(decoding: Self.secret, as: UTF8.self) + "\n" + String(decoding: Self.oldSecret, as: UTF8.self)
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: secretFile))
        service = try ServiceProcess(
            arguments: ["--commit-hook-url", receiver.url + "/hook", "--commit-hook-secret-file", secretFile]
                + arguments, replicas: replicas)
        api = try APIClient(service)
        token = try service.token(sub: "sam", role: "streamer", streams: [42])
    }

    deinit {
        receiver.stop()
        try? FileManager.default.removeItem(atPath: directory)  // best effort: a leftover in /tmp is harmless
    }

    /// An upload of stream `streamId` (default 42, by `sam`) with both objects PUT, not committed.
    struct Upload {
        var streamId: Int64
        var token: String
        var movie: [UInt8]
        var thumbnail: [UInt8]
        var issued: StreamPreviewPostResponse
    }

    func upload(
        seed: UInt8, streamId: Int64 = 42, token: String? = nil, details: PreviewDescription = PreviewDescription()
    ) throws -> Upload {
        let token = token ?? self.token
        let movie = TestMedia.mp4(size: 3000 + Int(seed) * 100, seed: seed, durationMs: 7500, width: 320, height: 180)
        let thumbnail = TestMedia.jpeg(seed: seed)
        let issued = try api.issue(
            streamId: streamId, movie: movie, thumbnail: thumbnail, details: details, token: token)
        try api.putBoth(issued, movie: movie, thumbnail: thumbnail)
        return Upload(streamId: streamId, token: token, movie: movie, thumbnail: thumbnail, issued: issued)
    }

    func commit(_ upload: Upload) throws -> Reply {
        try api.commit(streamId: upload.streamId, uploadId: upload.issued.uploadId, token: upload.token)
    }

    /// A commit of `upload` on a thread of its own, for one that waits on the hook.
    func commitInBackground(_ upload: Upload) -> BackgroundCommit {
        BackgroundCommit(
            baseURL: service.baseURL, streamId: upload.streamId, uploadId: upload.issued.uploadId,
            token: upload.token)
    }
}
