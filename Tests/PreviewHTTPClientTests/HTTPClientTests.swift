import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewHTTPClient

/// Answers every request with a fixed 200 and records it.
func echoServer() throws -> RawHTTPServer {
    try RawHTTPServer { request in
        .respond(
            RawHTTPServer.response(
                200, headers: [("X-Seen", "yes")], body: Array("ok".utf8),
                omitBody: request.requestLine.hasPrefix("HEAD ")))
    }
}

@Suite struct HTTPClientTests {
    @Test func getReturnsStatusHeadersAndBody() throws {
        let server = try RawHTTPServer { _ in
            .respond(
                RawHTTPServer.response(
                    201, "Created",
                    headers: [("X-Multi", "a"), ("X-Multi", "b"), ("X-Empty", ""), ("ETag", "\"abc\"")],
                    body: Array("hello body".utf8)))
        }
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPClientRequest(method: "GET", url: server.url + "/thing?x=1"))
        #expect(response.status == 201)
        #expect(response.body == Array("hello body".utf8))
        #expect(response.headers.values("x-multi") == ["a", "b"])
        #expect(response.headers["X-Empty"] == "")
        #expect(response.headers["etag"] == "\"abc\"")
        #expect(response.headers["Content-Length"] == "10")
        #expect(server.requests.first?.requestLine == "GET /thing?x=1 HTTP/1.1")
    }

    @Test func onlyTheRequestsHeadersAndHostGoOverTheWire() throws {
        let server = try echoServer()
        defer { server.stop() }
        let headers = HTTPHeaders([
            ("X-Goog-Date", "20260101T000000Z"), ("X-Empty", ""), ("x-lower", "Value  with  spaces"),
        ])
        _ = try HTTPClient().send(HTTPClientRequest(method: "GET", url: server.url + "/", headers: headers))
        let seen = try #require(server.requests.first)
        #expect(seen.headerNames == ["host", "x-goog-date", "x-empty", "x-lower"])
        #expect(seen.headers.contains { $0.name == "X-Empty" && $0.value == "" })
        #expect(seen.header("x-lower") == "Value  with  spaces")
        #expect(seen.header("host") == "127.0.0.1:\(server.port)")
    }

    @Test func headSendsNoBodyAndReturnsHeaders() throws {
        let server = try echoServer()
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPClientRequest(method: "HEAD", url: server.url + "/object"))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Length"] == "2")
        #expect(server.requests.first?.requestLine == "HEAD /object HTTP/1.1")
    }

    @Test func putBytesSendsExactlyTheBodyWithNoExpectOrContentType() throws {
        let server = try echoServer()
        defer { server.stop() }
        let body: [UInt8] = Array(0...255) + Array("tail".utf8)
        _ = try HTTPClient().send(HTTPClientRequest(method: "PUT", url: server.url + "/upload", body: .bytes(body)))
        let seen = try #require(server.requests.first)
        #expect(seen.requestLine == "PUT /upload HTTP/1.1")
        #expect(seen.header("Content-Length") == "\(body.count)")
        #expect(seen.body == body)
        #expect(seen.header("Expect") == nil)
        #expect(seen.header("Content-Type") == nil)
        #expect(seen.header("Transfer-Encoding") == nil)
    }

    @Test func putFileStreamsALargeFileWithExactLength() throws {
        let server = try echoServer()
        defer { server.stop() }
        let directory = URL(fileURLWithPath: try TestPaths.makeTemporaryDirectory(prefix: "sp-http"))
        defer { try? FileManager.default.removeItem(at: directory) }
        // Over 1 MiB, where curl would otherwise add `Expect: 100-continue`.
        let body = (0..<2_100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let file = directory.appendingPathComponent("body.bin")
        try Data(body).write(to: file)
        let request = HTTPClientRequest(
            method: "PUT", url: server.url + "/big", headers: HTTPHeaders([("Content-Type", "video/mp4")]),
            body: .file(path: file.path))
        let response = try HTTPClient().send(request)
        #expect(response.status == 200)
        let seen = try #require(server.requests.first)
        #expect(seen.header("Content-Length") == "2100000")
        #expect(seen.header("Expect") == nil)
        #expect(seen.header("Content-Type") == "video/mp4")
        #expect(seen.body == body)
    }

    @Test func aMissingOrIrregularBodyFileIsAFileError() throws {
        let client = try HTTPClient()
        for path in ["/nonexistent/body.bin", "/tmp"] {
            let error = try #require(throws: HTTPClientError.self) {
                try client.send(HTTPClientRequest(method: "PUT", url: "http://127.0.0.1:9/", body: .file(path: path)))
            }
            #expect(error.kind == .file)
        }
    }

    @Test func postSendsTheBodyWithoutAFormContentType() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try HTTPClient()
        _ = try client.send(HTTPClientRequest(method: "POST", url: server.url + "/p", body: .bytes(Array("a=1".utf8))))
        _ = try client.send(
            HTTPClientRequest(
                method: "POST", url: server.url + "/p", headers: HTTPHeaders([("Content-Type", "application/json")]),
                body: .bytes(Array("{}".utf8))))
        _ = try client.send(HTTPClientRequest(method: "POST", url: server.url + "/empty"))
        let seen = server.requests
        try #require(seen.count == 3)
        #expect(seen[0].requestLine == "POST /p HTTP/1.1")
        #expect(seen[0].body == Array("a=1".utf8))
        #expect(seen[0].header("Content-Type") == nil)
        #expect(seen[1].header("Content-Type") == "application/json")
        #expect(seen[1].body == Array("{}".utf8))
        #expect(seen[2].header("Content-Length") == "0")
        #expect(seen.allSatisfy { $0.header("Expect") == nil })
    }

    @Test func deleteAndOtherMethodsUseTheirOwnVerb() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try HTTPClient()
        let response = try client.send(HTTPClientRequest(method: "DELETE", url: server.url + "/object"))
        _ = try client.send(HTTPClientRequest(method: "PATCH", url: server.url + "/object", body: .bytes([1, 2, 3])))
        #expect(response.status == 200)
        #expect(response.body == Array("ok".utf8))
        let seen = server.requests
        #expect(seen.map(\.requestLine) == ["DELETE /object HTTP/1.1", "PATCH /object HTTP/1.1"])
        #expect(seen.first?.header("Content-Length") == nil)
        #expect(seen.last?.body == [1, 2, 3])
    }

    @Test func thePathGoesOverTheWireExactlyAsGiven() throws {
        let server = try echoServer()
        defer { server.stop() }
        let target = "/a/./b//c%7E/../d?X-Goog-Signature=ab%2Fcd&x=%7e"
        _ = try HTTPClient().send(HTTPClientRequest(method: "GET", url: server.url + target))
        #expect(server.requests.first?.requestLine == "GET \(target) HTTP/1.1")
    }

    @Test func consecutiveRequestsReuseOneConnection() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try HTTPClient()
        for path in ["/one", "/two", "/three"] {
            #expect(try client.send(HTTPClientRequest(method: "GET", url: server.url + path)).status == 200)
        }
        _ = try client.send(HTTPClientRequest(method: "PUT", url: server.url + "/four", body: .bytes([1])))
        #expect(server.acceptedConnections == 1)
        #expect(server.requests.map(\.connection) == [1, 1, 1, 1])
    }

    @Test func redirectsAreReturnedNotFollowed() throws {
        let server = try RawHTTPServer { _ in
            .respond(RawHTTPServer.response(302, "Found", headers: [("Location", "/elsewhere")]))
        }
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPClientRequest(method: "GET", url: server.url + "/here"))
        #expect(response.status == 302)
        #expect(response.headers["Location"] == "/elsewhere")
        #expect(server.requests.count == 1)
    }

    @Test func headersAreThoseOfTheFinalResponseNotOf100Continue() throws {
        let server = try RawHTTPServer { _ in
            .respond(
                Array("HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n".utf8)
                    + RawHTTPServer.response(200, headers: [("X-Final", "1")], body: [7]))
        }
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPClientRequest(method: "PUT", url: server.url + "/", body: .bytes([1])))
        #expect(response.status == 200)
        #expect(response.headers["X-Interim"] == nil)
        #expect(response.headers["X-Final"] == "1")
        #expect(response.body == [7])
    }

    @Test func chunkedResponseBodiesAreReassembled() throws {
        let server = try RawHTTPServer { _ in
            .respond(
                Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n".utf8))
        }
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPClientRequest(method: "GET", url: server.url + "/"))
        #expect(response.body == Array("abcde".utf8))
    }

    @Test func aSlowServerGivesATimeoutAndTheClientStaysUsable() throws {
        let server = try RawHTTPServer { request in
            request.requestLine.hasPrefix("GET /slow") ? .stall(seconds: 2) : .respond(RawHTTPServer.response(200))
        }
        defer { server.stop() }
        let client = try HTTPClient()
        var request = HTTPClientRequest(method: "GET", url: server.url + "/slow")
        request.timeoutSeconds = 0.3
        // A timeout, not the stalled answer that would come after 2 s.
        let error = try #require(throws: HTTPClientError.self) { try client.send(request) }
        #expect(error.kind == .timeout)
        #expect(try client.send(HTTPClientRequest(method: "GET", url: server.url + "/fast")).status == 200)
    }

    @Test func aRefusedPortIsAConnectError() throws {
        let port = try freeLoopbackPort()
        let error = try #require(throws: HTTPClientError.self) {
            try HTTPClient().send(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
        }
        #expect(error.kind == .connect)
        #expect(!error.message.isEmpty)
    }

    @Test(arguments: [
        "", "example.com/x", "ftp://127.0.0.1/x", "http://exa mple.com/", "http://[::1/", "http://host:99999/",
    ])
    func aBadURLIsAnInvalidURLError(_ url: String) throws {
        let error = try #require(throws: HTTPClientError.self) {
            try HTTPClient().send(HTTPClientRequest(method: "GET", url: url))
        }
        #expect(error.kind == .invalidURL, "\(url): \(error)")
    }

    @Test func headerInjectionAndBadTimeoutsAreRefusedBeforeSending() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try HTTPClient()
        let bad: [HTTPClientRequest] = [
            HTTPClientRequest(method: "GET", url: server.url, headers: HTTPHeaders([("X-A", "1\r\nX-Injected: 1")])),
            HTTPClientRequest(method: "GET", url: server.url, headers: HTTPHeaders([("Bad Name", "1")])),
            HTTPClientRequest(method: "GET", url: server.url, headers: HTTPHeaders([("", "1")])),
            HTTPClientRequest(method: "GET /x HTTP/1.1\r\n", url: server.url),
            {
                var request = HTTPClientRequest(method: "GET", url: server.url); request.timeoutSeconds = 0;
                return request
            }(),
        ]
        for request in bad {
            let error = try #require(throws: HTTPClientError.self) { try client.send(request) }
            #expect(error.kind == .invalidRequest)
        }
        #expect(server.requests.isEmpty)
    }

    @Test func loopbackIsAlwaysExemptFromProxies() {
        #expect(HTTPClient.noProxyList(environmentValue: nil) == "localhost,127.0.0.0/8,::1")
        #expect(HTTPClient.noProxyList(environmentValue: "") == "localhost,127.0.0.0/8,::1")
        #expect(HTTPClient.noProxyList(environmentValue: "*") == "*")
        #expect(
            HTTPClient.noProxyList(environmentValue: ".internal,10.0.0.0/8")
                == ".internal,10.0.0.0/8,localhost,127.0.0.0/8,::1")
    }
}

@Suite struct HTTPClientBodyLimitTests {
    @Test func aResponseBodyOverTheLimitAbortsTheTransfer() throws {
        let server = try RawHTTPServer { _ in
            .respond(RawHTTPServer.response(200, body: [UInt8](repeating: 0x61, count: 100_000)))
        }
        defer { server.stop() }
        var request = HTTPClientRequest(method: "GET", url: server.url + "/big")
        #expect(try HTTPClient().send(request).body.count == 100_000)
        request.maxResponseBodyBytes = 100_000
        #expect(try HTTPClient().send(request).body.count == 100_000)
        request.maxResponseBodyBytes = 99_999
        #expect {
            try HTTPClient().send(request)
        } throws: { error in
            (error as? HTTPClientError)?.kind == .transfer
                && (error as? HTTPClientError)?.message == "the response body is over 99999 bytes"
        }
    }
}
