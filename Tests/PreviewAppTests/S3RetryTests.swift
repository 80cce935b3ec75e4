import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The remote object client against a scripted HTTP server on loopback: retries with backoff on
/// 503 and stalls, a clear error otherwise, connections reused, each attempt signed afresh.
@Suite struct S3RetryTests {
    static let fast: RemoteObjectClient.Configuration = {
        var configuration = RemoteObjectClient.Configuration()
        configuration.retry = RetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.05, maxTotal: 10)
        configuration.timeoutSeconds = 2
        return configuration
    }()

    /// Answers HEAD/GET by a list of statuses, one per request, the last repeating.
    static func server(statuses: [Int], body: [UInt8] = []) throws -> RawHTTPServer {
        let served = Mutex(0)
        return try RawHTTPServer { request in
            let index = served.withLock { count in
                defer { count += 1 }
                return count
            }
            let status = statuses[min(index, statuses.count - 1)]
            let isHead = request.requestLine.hasPrefix("HEAD ")
            if status == 200 {
                return .respond(
                    RawHTTPServer.response(
                        200, headers: [("Content-Type", "video/mp4")], body: Array(repeating: 7, count: 100),
                        omitBody: isHead))
            }
            if status == 206 {
                return .respond(RawHTTPServer.response(206, "Partial Content", body: Array(repeating: 7, count: 16)))
            }
            return .respond(
                RawHTTPServer.response(
                    status, "X", headers: [("Content-Type", "application/xml")], body: body, omitBody: isHead))
        }
    }

    @Test func twoServiceUnavailableAnswersAreRetriedAndTheThirdAttemptSucceeds() throws {
        let server = try Self.server(statuses: [503, 503, 200])
        defer { server.stop() }
        let waits = Mutex<[Double]>([])
        let storage = S3Fixture.storage(
            endpoint: server.url, bucket: "bkt", configuration: Self.fast,
            sleep: { wait in waits.withLock { $0.append(wait) } })
        let info = try #require(try storage.inspect(key: "k.mp4", prefixLength: 0))
        #expect(info.size == 100 && info.contentType == "video/mp4")
        let lines = server.requests.map(\.requestLine)
        #expect(
            lines.count == 3 && lines.allSatisfy { $0.hasPrefix("HEAD /bkt/k.mp4?X-Amz-Algorithm=AWS4-HMAC-SHA256") })
        #expect(waits.withLock { $0.count } == 2)
        #expect(waits.withLock { $0.allSatisfy { $0 >= 0 && $0 <= 0.05 } })
        #expect(server.acceptedConnections == 1, "the pooled client keeps its connection across attempts")
    }

    @Test func aForbiddenAnswerIsNotRetriedAndTheErrorNamesTheStoresCode() throws {
        let xml = "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>nope</Message></Error>"
        let server = try Self.server(statuses: [403], body: Array(xml.utf8))
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.fast)
        do {
            _ = try storage.read(key: "k.mp4", offset: 0, length: 16)
            Issue.record("a 403 must throw")
        } catch let error as StorageError {
            #expect(error.description.contains("403 SignatureDoesNotMatch (nope)"), "\(error)")
            #expect(error.description.contains("bkt/k.mp4") && error.description.contains("after 1 attempt(s)"))
        }
        #expect(server.requests.count == 1)
        #expect(server.requests.first?.header("Range") == "bytes=0-15")
    }

    @Test func persistentServerErrorsGiveUpAfterTheAttemptLimitWithTheLastAnswer() throws {
        let xml = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
        let server = try Self.server(statuses: [503], body: Array(xml.utf8))
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.fast)
        #expect {
            try storage.delete(key: "k.mp4")
        } throws: { error in
            "\(error)".contains("503 SlowDown") && "\(error)".contains("after 4 attempt(s)")
        }
        #expect(server.requests.count == 4)
        #expect(server.requests.allSatisfy { $0.requestLine.hasPrefix("DELETE /bkt/k.mp4?") })
    }

    @Test func aStalledServerTimesOutAndIsRetriedWithinTheBudget() throws {
        let calls = Mutex(0)
        let server = try RawHTTPServer { _ in
            let first = calls.withLock { count in
                defer { count += 1 }
                return count == 0
            }
            return first
                ? .stall(seconds: 3)
                : .respond(RawHTTPServer.response(206, "Partial Content", body: Array("ftyp".utf8)))
        }
        defer { server.stop() }
        var configuration = Self.fast
        configuration.timeoutSeconds = 0.5
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: configuration)
        #expect(try storage.read(key: "k", offset: 4, length: 4) == Array("ftyp".utf8))
        #expect(server.requests.count == 2)
    }

    @Test func aRefusedConnectionIsRetriedThenReportedClearly() throws {
        let port = try freeLoopbackPort()
        let storage = S3Fixture.storage(endpoint: "http://127.0.0.1:\(port)", bucket: "bkt", configuration: Self.fast)
        #expect {
            _ = try storage.inspect(key: "k", prefixLength: 16)
        } throws: { error in
            "\(error)".contains("HEAD bkt/k failed after 4 attempt(s)") && "\(error)".contains("connect")
        }
    }

    @Test func notFoundMeansAbsentForInspectAndReadAndDoneForDelete() throws {
        let server = try Self.server(statuses: [404])
        defer { server.stop() }
        let storage = S3Fixture.storage(endpoint: server.url, bucket: "bkt", configuration: Self.fast)
        #expect(try storage.inspect(key: "k", prefixLength: 16) == nil)
        #expect(try storage.read(key: "k", offset: 0, length: 10) == nil)
        try storage.delete(key: "k")
        #expect(server.requests.count == 3)
    }
}
