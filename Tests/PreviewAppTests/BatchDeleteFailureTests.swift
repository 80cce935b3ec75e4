import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `delete(keys:concurrency:)` of the remote storage against a scripted loopback server playing S3
/// or GCS: which keys come back failed for each kind of answer, and how many requests overlap.
@Suite struct BatchDeleteFailureTests {
    static func configuration(timeout: Double = 2, attempts: Int = 3) -> RemoteObjectClient.Configuration {
        var configuration = RemoteObjectClient.Configuration()
        configuration.retry = RetryPolicy(maxAttempts: attempts, baseDelay: 0.01, maxDelay: 0.02, maxTotal: 10)
        configuration.timeoutSeconds = timeout
        return configuration
    }

    static func deleteResult(_ entries: String = "") -> ServerAction {
        .respond(
            RawHTTPServer.response(
                200, headers: [("Content-Type", "application/xml")],
                body: Array(
                    ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DeleteResult "
                        + "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(entries)</DeleteResult>").utf8)))
    }

    /// The keys of a DeleteObjects body, decoded.
    static func keys(in body: [UInt8]) -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        return text.components(separatedBy: "<Key>").dropFirst().map {
            StoreErrorBody.decodeEntities(String($0.prefix { $0 != "<" }))
        }
    }

    static func gcsStorage(_ server: RawHTTPServer, configuration: RemoteObjectClient.Configuration = configuration())
        throws -> RemoteObjectStorage
    {
        let signer = try GCSV4Presigner(
            credentials: .hmac(accessId: "GOOGTEST", secret: "secret"), endpoint: server.url, crypto: OpenSSLCrypto())
        let client = RemoteObjectClient(signer: signer, bucket: "bkt", configuration: configuration)
        return RemoteObjectStorage(backend: .gcs, client: client, publicBaseURL: nil, grid: ExpiryGrid())
    }

    // MARK: S3

    @Test func perKeyErrorsFailThoseKeysAndNoSuchKeyCountsAsDeleted() throws {
        let server = try RawHTTPServer { _ in
            Self.deleteResult(
                "<Error><Key>b.mp4</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
                    + "<Error><Key>c.mp4</Key><Code>NoSuchKey</Code><Message>gone</Message></Error>"
                    + "<Error><Key>d &amp; e.mp4</Key><Code>InternalError</Code></Error>")
        }
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.configuration())
        let keys = ["a.mp4", "b.mp4", "c.mp4", "d & e.mp4", "f.mp4"]
        let failed = storage.delete(keys: keys, concurrency: 4)
        #expect(Set(failed.keys) == ["b.mp4", "d & e.mp4"])
        #expect(failed["b.mp4"]?.description.contains("AccessDenied (Access Denied)") == true)
        #expect(failed.values.allSatisfy { !$0.unreachable })

        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.requestLine.hasPrefix("POST /bkt?delete=&X-Amz-Algorithm=AWS4-HMAC-SHA256&"))
        #expect(request.requestLine.contains("X-Amz-SignedHeaders=content-md5%3Bcontent-type%3Bhost&"))
        #expect(request.header("Content-MD5") == Data(try OpenSSLCrypto().md5(request.body)).base64EncodedString())
        #expect(request.header("Content-Type") == "application/xml")
        #expect(Self.keys(in: request.body) == keys)
    }

    @Test func serverErrorsFailEveryKeyOfTheRequestAfterTheRetries() throws {
        let server = try RawHTTPServer { _ in
            .respond(
                RawHTTPServer.response(
                    500, "Internal Server Error", body: Array("<Error><Code>InternalError</Code></Error>".utf8)))
        }
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.configuration())
        let failed = storage.delete(keys: ["a", "b", "c"], concurrency: 2)
        #expect(Set(failed.keys) == ["a", "b", "c"])
        #expect(failed.values.allSatisfy { !$0.unreachable && $0.description.contains("HTTP 500 InternalError") })
        #expect(server.requests.count == 3, "one request, three attempts")
    }

    @Test func aNonXMLSuccessAnswerDeletesNothing() throws {
        let server = try RawHTTPServer { _ in
            .respond(RawHTTPServer.response(200, body: Array("<html>maintenance</html>".utf8)))
        }
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.configuration())
        let failed = storage.delete(keys: ["a", "b"], concurrency: 1)
        #expect(Set(failed.keys) == ["a", "b"])
        #expect(failed["a"]?.description.contains("not a DeleteResult") == true)
    }

    @Test func aStalledServerTimesOutAndFailsTheKeysWithoutCallingTheStoreUnreachable() throws {
        let server = try RawHTTPServer { _ in .stall(seconds: 3) }
        defer { server.stop() }
        let storage = S3Fixture.storage(
            endpoint: server.url, bucket: "bkt", configuration: Self.configuration(timeout: 0.3, attempts: 2))
        let failed = storage.delete(keys: ["a", "b"], concurrency: 2)
        #expect(Set(failed.keys) == ["a", "b"])
        #expect(failed.values.allSatisfy { !$0.unreachable && $0.description.contains("timeout") })
    }

    @Test func aClosedPortFailsEveryKeyAsUnreachable() throws {
        let port = try freeLoopbackPort()
        let storage = S3Fixture.storage(
            endpoint: "http://127.0.0.1:\(port)", bucket: "bkt", configuration: Self.configuration(attempts: 2))
        let failed = storage.delete(keys: ["a", "b", "bell\u{7}"], concurrency: 2)
        #expect(Set(failed.keys) == ["a", "b", "bell\u{7}"])
        #expect(failed.values.allSatisfy { $0.unreachable })
    }

    @Test func manyKeysAreSplitEvenlyIntoRequestsOfAtMostAThousandAndKeysXMLCannotCarryGoAlone() throws {
        let server = try RawHTTPServer { request in
            request.requestLine.hasPrefix("DELETE ")
                ? .respond(RawHTTPServer.response(204, "No Content")) : Self.deleteResult()
        }
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.configuration())
        let keys = (0..<2_500).map { "split/\($0).mp4" }
        let failed = storage.delete(keys: keys + ["split/bell\u{7}.mp4", "split/1.mp4"], concurrency: 2)
        #expect(failed.isEmpty)
        let posts = server.requests.filter { $0.requestLine.hasPrefix("POST ") }
        #expect(
            posts.map { Self.keys(in: $0.body).count }.sorted() == [832, 834, 834],
            "three requests at most 1,000 keys, evenly")

        let posted = posts.flatMap { Self.keys(in: $0.body) }
        let eachKeyOnce = posted.count == keys.count && Set(posted) == Set(keys)
        #expect(eachKeyOnce, "each key in exactly one request")
        let deletes = server.requests.filter { $0.requestLine.hasPrefix("DELETE ") }.map(\.requestLine)
        #expect(deletes.count == 1 && deletes[0].hasPrefix("DELETE /bkt/split/bell%07.mp4?"))
    }

    @Test func fewerKeysThanTheRequestsAllowedAreSpreadOverThemDownToAHundredARequest() throws {
        let server = try RawHTTPServer { _ in Self.deleteResult() }
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.configuration())
        #expect(storage.delete(keys: (0..<250).map { "spread/\($0).mp4" }, concurrency: 8).isEmpty)
        #expect(storage.delete(keys: (0..<2_000).map { "wide/\($0).mp4" }, concurrency: 8).isEmpty)
        let sizes = server.requests.filter { $0.requestLine.hasPrefix("POST ") }.map { Self.keys(in: $0.body).count }
        #expect(sizes.sorted() == [82, 84, 84] + Array(repeating: 250, count: 8))
    }

    // MARK: GCS

    @Test func gcsDeletesOverlapUpToTheConcurrencyAndNoMore() throws {
        let keys = (0..<40).map { "gcs/\($0).mp4" }
        let probe = OverlapProbe(total: keys.count, target: 4)
        let server = try RawHTTPServer { _ in
            probe.hold()
            return .respond(RawHTTPServer.response(204, "No Content"))
        }
        defer { server.stop() }
        let failed = try Self.gcsStorage(server).delete(keys: keys, concurrency: 4)
        #expect(failed.isEmpty)
        #expect(probe.peak == 4)
        #expect(
            server.requests.count == 40 && server.requests.allSatisfy { $0.requestLine.hasPrefix("DELETE /bkt/gcs/") })
    }

    @Test func gcsCountsNotFoundAsDeletedAndReportsEachRefusedKey() throws {
        let server = try RawHTTPServer { request in
            if request.requestLine.hasPrefix("DELETE /bkt/gone") {
                return .respond(
                    RawHTTPServer.response(404, "Not Found", body: Array("<Error><Code>NoSuchKey</Code></Error>".utf8)))
            }
            if request.requestLine.hasPrefix("DELETE /bkt/denied") {
                return .respond(
                    RawHTTPServer.response(
                        403, "Forbidden", body: Array("<Error><Code>AccessDenied</Code></Error>".utf8)))
            }
            return .respond(RawHTTPServer.response(204, "No Content"))
        }
        defer { server.stop() }
        let failed = try Self.gcsStorage(server).delete(keys: ["ok", "gone", "denied", "ok2"], concurrency: 3)
        #expect(Set(failed.keys) == ["denied"])
        #expect(failed["denied"].map { !$0.unreachable && $0.description.contains("403 AccessDenied") } == true)
    }
}

/// Holds each request until `target` are in flight at once (or every request has started), then
/// a moment longer so a client that sends more than `target` at once is seen doing it, and
/// records the most that were ever in flight. Once a wait runs out (the client never gets to
/// `target`), it stops holding, so a broken client fails the test quickly.
final class OverlapProbe: Sendable {
    private let total: Int
    private let target: Int
    private let state = Mutex((inFlight: 0, started: 0, peak: 0, gaveUp: false))

    init(total: Int, target: Int) {
        self.total = total
        self.target = target
    }

    var peak: Int { state.withLock { $0.peak } }

    func hold() {
        state.withLock { state in
            state.inFlight += 1
            state.started += 1
            state.peak = max(state.peak, state.inFlight)
        }
        let met = eventually(within: 5) {
            state.withLock { $0.gaveUp || $0.inFlight >= target || $0.started >= total }
        }
        if met { usleep(20_000) }  // the moment longer: a request beyond `target` would arrive now
        state.withLock { state in
            state.inFlight -= 1
            if !met { state.gaveUp = true }
        }
    }
}
