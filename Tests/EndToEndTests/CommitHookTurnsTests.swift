import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `serve --commit-hook-url` with a hook that is slow (answers held until the test opens a gate):
/// commits take turns to call it, at most one per upload and per subject, wait for a turn in
/// arrival order, and a commit without a turn never publishes.
@Suite("Moderation hook turns")
struct CommitHookTurnsTests {
    static let allow = WebhookReceiver.Answer.json(#"{"allow":true}"#)

    /// The subject of a hook call (the token `sub` of its commit).
    static func subject(of request: WebhookReceiver.Request) -> String? {
        (try? request.jsonObject())?["subject"] as? String
    }

    @Test("A commit without a turn is 503 and publishes nothing, even with --commit-hook-fail-open")
    func busyNeverFailsOpen() throws {
        let gate = WebhookReceiver.Gate()
        // Two workers: one turn, and no room to wait for it.
        let hook = try HookedService(
            arguments: ["--worker-threads", "2", "--commit-hook-timeout", "60", "--commit-hook-fail-open"],
            script: [.held(gate, then: Self.allow)])
        let ann = try hook.service.token(sub: "ann", role: "streamer", streams: [43])
        let other = try hook.upload(seed: 2, streamId: 43, token: ann)
        let first = hook.commitInBackground(try hook.upload(seed: 1))
        try #require(eventually(within: 30) { hook.receiver.requests.count == 1 }, "the first commit calls the hook")

        let busy = try hook.commit(other)
        expectError(busy, status: 503, code: "hook_unavailable")
        #expect(busy.headers["Retry-After"] == "60")
        #expect(hook.receiver.requests.count == 1)
        #expect(try hook.api.feedItems().isEmpty, "not published without the hook's verdict")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="busy"}"#) == "1")
        #expect(try hook.api.metricValue("streampreview_commit_hook_failed_open_total") == "0")

        gate.open()
        #expect(try first.wait()?.status == 200)
        #expect(try hook.api.feedItems().map(\.streamId) == [42])
    }

    @Test("Re-committing an upload under review holds one call; the repeats wait for its verdict or are 503")
    func oneCallPerUpload() throws {
        let gate = WebhookReceiver.Gate()
        let refusal = WebhookReceiver.Answer.json(#"{"allow":false,"reason":"no phone numbers"}"#)
        // 8 workers: 4 turns, room for 2 to wait.
        let hook = try HookedService(arguments: ["--commit-hook-timeout", "60"])
        hook.receiver.answer(
            [], otherwise: .chosen { Self.subject(of: $0) == "sam" ? .held(gate, then: refusal) : Self.allow })
        let ann = try hook.service.token(sub: "ann", role: "streamer", streams: [43])
        let other = try hook.upload(seed: 2, streamId: 43, token: ann)
        let upload = try hook.upload(seed: 1)
        let commits = (0..<4).map { _ in hook.commitInBackground(upload) }
        // One commit calls, one waits for it, and the other two are answered at once.
        try #require(
            eventually(within: 60, everyMicroseconds: 50_000) {
                commits.filter(\.isDone).count == 2
                    && (try? hook.api.metricValue("streampreview_commit_hook_waiting_commits")) == "1"
            })
        #expect(hook.receiver.requests.count == 1)
        for commit in commits where commit.isDone {
            let reply = try #require(try commit.reply)
            expectError(reply, status: 503, code: "hook_unavailable")
            #expect(reply.headers["Retry-After"] == "60")
        }

        let others = try hook.commit(other)
        #expect(others.status == 200, "another streamer is not held up: \(others.text)")

        gate.open()
        var statuses: [Int] = []
        for commit in commits {
            let reply = try #require(try commit.wait())
            statuses.append(reply.status)
            if reply.status == 422 { #expect(try reply.json(ErrorResponse.self).message == "no phone numbers") }
        }
        #expect(statuses.sorted() == [422, 422, 503, 503])
        #expect(hook.receiver.requests.filter { Self.subject(of: $0) == "sam" }.count == 1)

        expectError(try hook.commit(upload), status: 422, code: "rejected_by_hook")
        #expect(hook.receiver.requests.count == 2, "the refusal is kept: no call")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="refused"}"#) == "1")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="remembered"}"#) == "2")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="busy"}"#) == "2")
        #expect(try hook.api.metricValue("streampreview_commit_hook_wait_seconds_count") == "1")
        #expect(try hook.api.feedItems().map(\.streamId) == [43])
    }

    @Test("A subject's second upload waits for its first one's call while other streamers' commits go on")
    func oneCallPerSubject() throws {
        let gate = WebhookReceiver.Gate()
        let hook = try HookedService(arguments: ["--commit-hook-timeout", "60"])
        hook.receiver.answer(
            [],
            otherwise: .chosen {
                (try? $0.jsonObject())?["streamId"] as? String == "42" ? .held(gate, then: Self.allow) : Self.allow
            })
        let sam = try hook.service.token(sub: "sam", role: "streamer", streams: [42, 43])
        let ann = try hook.service.token(sub: "ann", role: "streamer", streams: [44])
        let second = try hook.upload(seed: 2, streamId: 43, token: sam)
        let others = try hook.upload(seed: 3, streamId: 44, token: ann)
        let first = hook.commitInBackground(try hook.upload(seed: 1, token: sam))
        try #require(eventually(within: 30) { hook.receiver.requests.count == 1 })

        let waiting = hook.commitInBackground(second)
        try #require(
            eventually(within: 30, everyMicroseconds: 50_000) {
                (try? hook.api.metricValue("streampreview_commit_hook_waiting_commits")) == "1"
            }, "sam's second upload waits")
        #expect(hook.receiver.requests.count == 1, "and does not take a second turn")
        let reply = try hook.commit(others)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(hook.receiver.requests.count == 2)
        #expect(!waiting.isDone)

        gate.open()
        #expect(try first.wait()?.status == 200)
        #expect(try waiting.wait()?.status == 200)
        #expect(hook.receiver.requests.count == 3)
        #expect(try hook.api.feedItems().map(\.streamId).sorted() == [42, 43, 44])
        #expect(try hook.api.metricValue("streampreview_commit_hook_wait_seconds_count") == "1")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="busy"}"#) == "0")
    }

    @Test("A commit that finds every turn taken waits for one; past the waiting room it is 503 at once")
    func waitsForATurn() throws {
        let gate = WebhookReceiver.Gate()
        // Four workers: two turns, room for one to wait.
        let hook = try HookedService(
            arguments: ["--worker-threads", "4", "--commit-hook-timeout", "60"],
            script: [.held(gate, then: Self.allow), .held(gate, then: Self.allow)])
        var uploads: [HookedService.Upload] = []
        for (seed, name) in ["sam", "ann", "bob", "cat"].enumerated() {
            let streamId = Int64(42 + seed)
            let token = try hook.service.token(sub: name, role: "streamer", streams: [streamId])
            uploads.append(try hook.upload(seed: UInt8(seed + 1), streamId: streamId, token: token))
        }
        let calling = uploads.prefix(2).map { hook.commitInBackground($0) }
        try #require(eventually(within: 30) { hook.receiver.requests.count == 2 })

        let waiting = hook.commitInBackground(uploads[2])
        try #require(
            eventually(within: 30, everyMicroseconds: 50_000) {
                (try? hook.api.metricValue("streampreview_commit_hook_waiting_commits")) == "1"
            }, "bob waits for a turn")
        let full = try hook.commit(uploads[3])
        expectError(full, status: 503, code: "hook_unavailable")
        #expect(!waiting.isDone && hook.receiver.requests.count == 2)

        gate.open()
        for commit in calling + [waiting] {
            #expect(try commit.wait()?.status == 200)
        }
        #expect(hook.receiver.requests.count == 3)
        #expect(try hook.api.feedItems().map(\.streamId).sorted() == [42, 43, 44])
        #expect(try hook.api.metricValue("streampreview_commit_hook_wait_seconds_count") == "1")
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="busy"}"#) == "1")
    }
}
