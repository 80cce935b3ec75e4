import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Requests an attacker sends by hand, against the built binary over raw sockets: each is
/// answered on its head with the documented status and code, and the connection is closed.
@Suite("Hostile request heads")
struct HostileInputTests {
    /// The API request line and fields every framing case shares.
    static let postHead = "POST /api/preview/post HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
    /// A second request pipelined after the first: answered only if the server found a boundary there.
    static let smuggled = "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n"

    @Test(
        "A Transfer-Encoding a proxy may honour but the server would not is refused with 400 bad_request",
        arguments: [
            // Whitespace before the colon: the server's HTTP library kept it in the field name.
            "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\nhello",
            // A folded value: the library glued it onto the field name.
            "Transfer-Encoding:\r\n chunked\r\nContent-Length: 5\r\n\r\nhello",
            // A blank after the coding: the library reads the body up to the end of the connection.
            "Transfer-Encoding: chunked \r\n\r\n0\r\n\r\n",
        ])
    func ambiguousTransferEncodingIsRefused(_ rest: String) throws {
        let service = try ServiceProcess()
        let target = try RawHTTPTarget(service.baseURL + "/")
        let connection = try RawHTTPConnection(port: target.port, host: target.host, readTimeoutSeconds: 5)
        try connection.send(Array((Self.postHead + rest + Self.smuggled).utf8))
        let response = try connection.readResponse()
        #expect(response.status == 400)
        #expect(try ErrorResponse(json: response.body).code == "bad_request")
        #expect(try connection.closedByServer(), "the pipelined request is not answered")
    }

    @Test(
        "A body declared over the limit is refused with 413 on its head, however large the number",
        arguments: [
            // Larger than Int64.max, which the API's limit check once could not read.
            "POST /api/preview/post HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 10000000000000000000",
            // An object GET takes no body; it was read to its end before the answer.
            "GET /objects/previews/42/any/movie.mp4 HTTP/1.1\r\nContent-Length: 1048576",
        ])
    func oversizedDeclaredBodyIsRefusedOnItsHead(_ head: String) throws {
        let service = try ServiceProcess()
        let target = try RawHTTPTarget(service.baseURL + "/")
        let connection = try RawHTTPConnection(port: target.port, host: target.host, readTimeoutSeconds: 5)
        // No body byte is sent: a server waiting for one lets the read deadline pass.
        try connection.send(Array((head + "\r\nHost: h\r\n\r\n").utf8))
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(try ErrorResponse(json: response.body).code == "payload_too_large")
        #expect(response["Connection"]?.lowercased() == "close")
        #expect(try connection.closedByServer())
    }

    @Test("A POST to an API route without a valid bearer token is refused with 401 on its head, before its body")
    func unauthenticatedBodyIsRefusedOnItsHead() throws {
        let service = try ServiceProcess()
        let target = try RawHTTPTarget(service.baseURL + "/")
        for authorization in ["", "Authorization: Bearer not.a.jwt\r\n"] {
            let connection = try RawHTTPConnection(port: target.port, host: target.host, readTimeoutSeconds: 5)
            // No body byte is sent: a server waiting for the body lets the read deadline pass.
            try connection.send(Array((Self.postHead + authorization + "Content-Length: 1000\r\n\r\n").utf8))
            let response = try connection.readResponse()
            #expect(response.status == 401)
            #expect(try ErrorResponse(json: response.body).code == "unauthenticated")
            #expect(try connection.closedByServer())
        }
    }

    @Test("An API body trickled one byte at a time is cut off by --body-timeout")
    func trickledAPIBodyIsClosed() throws {
        let service = try ServiceProcess(arguments: ["--body-timeout", "2"])
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let target = try RawHTTPTarget(service.baseURL + "/")
        let connection = try RawHTTPConnection(port: target.port, host: target.host)
        try connection.send(
            Array((Self.postHead + "Authorization: Bearer \(token)\r\nContent-Length: 150\r\n\r\n").utf8))
        // 150 bytes at one per 200 ms would take 30 s; the deadline closes it at 2 s.
        var closed = false
        for _ in 0..<150 where !closed {
            closed = try connection.waitForClose(milliseconds: 200)
            if !closed, (try? connection.send(Array("a".utf8))) == nil { closed = true }
        }
        #expect(closed)
    }
}
