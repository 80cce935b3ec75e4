import Foundation
import PreviewCore
import PreviewHTTPClient
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The uploader's PUT (the app package's, over libcurl) against a scripted store on loopback,
/// with instant waits: a stalled
/// attempt times out and the file is sent again from its first byte, the attempts stop at
/// `--retries`, and a store's XML 412 on a retry counts as stored.
@Suite struct PreviewUploaderPutTests {
    /// An uploader whose waits are recorded instead of slept, with a fixed jitter.
    final class Harness: Sendable {
        let waits = Collected<Double>()
        let notes = Collected<String>()
        let folder: String
        let file: String
        let body: [UInt8]

        init(size: Int = 300 * 1024) throws {
            folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-put")
            file = folder + "/clip.mp4"
            body = TestMedia.mp4(size: size, seed: 9)
            try Data(body).write(to: URL(fileURLWithPath: file))
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        func uploader(retries: Int = 5, putTimeout: Double = 10) throws -> PreviewUploader {
            var options = UploaderOptions()
            options.server = "http://127.0.0.1:1"
            var uploader = PreviewUploader(options: options, transport: try CurlTransport())
            uploader.retry.maxAttempts = retries + 1
            uploader.retry.putTimeout = putTimeout
            let waits = self.waits
            uploader.clock.sleep = { seconds in waits.append(seconds) }
            uploader.clock.random = { 0.6 }
            let notes = self.notes
            uploader.progress = UploadProgressReporter(
                mode: .plain,
                write: { text in
                    if text.hasPrefix("retrying") || text.contains("earlier attempt") { notes.append(text) }
                })
            return uploader
        }

        var inAnHour: Int64 { Int64(Date().timeIntervalSince1970) + 3600 }
    }

    /// Answers the n-th request (from 0) with `script[n]`, the last one repeating.
    static func store(_ script: [ServerAction]) throws -> RawHTTPServer {
        let served = Mutex(0)
        return try RawHTTPServer { _ in
            let index = served.withLock { count in
                defer { count += 1 }
                return count
            }
            return script[min(index, script.count - 1)]
        }
    }

    @Test func aStalledAttemptTimesOutAndTheFileIsSentAgainFromItsFirstByte() async throws {
        let harness = try Harness()
        let store = try Self.store([.stall(seconds: 8), .respond(RawHTTPServer.response(200))])
        defer { store.stop() }
        try await harness.uploader(putTimeout: 1).put(
            url: store.url + "/objects/k.mp4", headers: ["Content-Type": "video/mp4"], file: harness.file,
            expiresAt: harness.inAnHour)
        let requests = store.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.body == harness.body }, "each attempt sends the whole file")
        #expect(requests.allSatisfy { $0.header("Content-Type") == "video/mp4" })
        #expect(harness.waits.all == [0.3])
        #expect(
            harness.notes.all
                == ["retrying PUT of clip.mp4 in 0.3 s: no answer within 1.0 s (attempt 2 of 6)\n"])
    }

    @Test func theAttemptsStopAtTheRetriesGivenWithExitCode75() async throws {
        let harness = try Harness(size: 2000)
        let store = try Self.store([
            .respond(
                RawHTTPServer.response(
                    503, "Service Unavailable", headers: [("Content-Type", "application/xml")],
                    body: Array("<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>".utf8)))
        ])
        defer { store.stop() }
        let error = try await #require(throws: AppError.self) {
            try await harness.uploader(retries: 2).put(
                url: store.url + "/k.mp4", headers: [:], file: harness.file, expiresAt: harness.inAnHour)
        }
        #expect(store.requests.count == 3)
        #expect(error.exitCode == .tempFailure)
        #expect(error.description == "PUT of clip.mp4 failed after 3 attempts: 503 SlowDown: Reduce your rate")
        #expect(harness.waits.all == [0.3, 0.6])
    }

    @Test func aPreconditionFailedOnARetryMeansTheFirstAttemptStoredIt() async throws {
        let harness = try Harness(size: 2000)
        let store = try Self.store([
            .respond(RawHTTPServer.response(500, "Internal Server Error")),
            .respond(
                RawHTTPServer.response(
                    412, "Precondition Failed",
                    body: Array(
                        ("<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you "
                            + "specified did not hold</Message></Error>").utf8))),
        ])
        defer { store.stop() }
        try await harness.uploader().put(
            url: store.url + "/k.mp4", headers: ["If-None-Match": "*"], file: harness.file,
            expiresAt: harness.inAnHour)
        #expect(store.requests.count == 2)
        #expect(store.requests.allSatisfy { $0.header("If-None-Match") == "*" })
        let notes = harness.notes.all
        #expect(notes.count == 2)
        #expect(notes.last?.hasPrefix("PUT of clip.mp4: 412 PreconditionFailed: ") == true)
        #expect(notes.last?.hasSuffix("on attempt 2: an earlier attempt stored it\n") == true)
    }

    @Test func aPreconditionFailedOnTheFirstAttemptIsAnErrorAtOnce() async throws {
        let harness = try Harness(size: 2000)
        let store = try Self.store([.respond(RawHTTPServer.response(412, "Precondition Failed"))])
        defer { store.stop() }
        let error = try await #require(throws: AppError.self) {
            try await harness.uploader().put(
                url: store.url + "/k.mp4", headers: [:], file: harness.file, expiresAt: harness.inAnHour)
        }
        #expect(store.requests.count == 1)
        #expect(error.exitCode == .failure)
        #expect(error.description == "PUT of clip.mp4 failed: HTTP 412")
        #expect(harness.waits.all.isEmpty)
    }
}

/// Values appended from any thread, read by the test.
final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}
