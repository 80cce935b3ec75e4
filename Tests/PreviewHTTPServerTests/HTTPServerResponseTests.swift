import Glibc
import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer writes the responder's response")
struct HTTPServerResponseTests {
    @Test("status and every header pass through, repeated names included; Content-Length comes from the body")
    func headersAndStatus() throws {
        let responder = RecordingResponder { _ in
            var headers = HTTPHeaders()
            headers.add("X-One", "1")
            headers.add("Set-Cookie", "a=1")
            headers.add("Set-Cookie", "b=2")
            headers.add("Content-Type", "application/json")
            headers.add("Content-Length", "999")
            return HTTPResponse(status: 201, headers: headers, body: .bytes(Array("{\"ok\":true}".utf8)))
        }
        let response = try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /things HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 201)
        #expect(response["X-One"] == "1")
        #expect(response.values("Set-Cookie") == ["a=1", "b=2"])
        #expect(response["Content-Type"] == "application/json")
        #expect(response.values("Content-Length") == ["11"])
        #expect(response.body == Array("{\"ok\":true}".utf8))
    }

    @Test("a file body serves exactly length bytes from offset, and HEAD gives its Content-Length without a body")
    func fileSlice() throws {
        let content = binaryBytes(count: 8192)
        let path = try temporaryFile(content)
        defer { unlink(path) }
        let responder = RecordingResponder { _ in
            var headers = HTTPHeaders()
            headers.add("Content-Range", "bytes 100-1099/8192")
            headers.add("Content-Type", "video/mp4")
            return HTTPResponse(status: 206, headers: headers, body: .file(path: path, offset: 100, length: 1000))
        }
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /clip HTTP/1.1\r\nHost: h\r\nRange: bytes=100-1099\r\n\r\n")
            let slice = try connection.readResponse()
            #expect(slice.status == 206)
            #expect(slice["Content-Length"] == "1000")
            #expect(slice["Content-Range"] == "bytes 100-1099/8192")
            #expect(slice.body == Array(content[100..<1100]))

            // HEAD then GET on one connection: a body after the HEAD answer would corrupt
            // the second response.
            try connection.send("HEAD /clip HTTP/1.1\r\nHost: h\r\n\r\nGET /clip HTTP/1.1\r\nHost: h\r\n\r\n")
            let head = try connection.readResponse(hasBody: false)
            #expect(head.status == 206)
            #expect(head["Content-Length"] == "1000")
            let again = try connection.readResponse()
            #expect(again.status == 206)
            #expect(again.body == Array(content[100..<1100]))
        }
        #expect(responder.seenRequests.map(\.method) == ["GET", "HEAD", "GET"])
    }

    @Test("a whole file from offset 0 and an empty bytes body are served")
    func wholeFileAndEmptyBody() throws {
        let content = binaryBytes(count: 300_000, seed: 7)
        let path = try temporaryFile(content)
        defer { unlink(path) }
        let responder = RecordingResponder { request in
            request.path == "/file"
                ? HTTPResponse(status: 200, body: .file(path: path, offset: 0, length: UInt64(content.count)))
                : HTTPResponse(status: 204)
        }
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /file HTTP/1.1\r\nHost: h\r\n\r\n")
            let file = try connection.readResponse()
            #expect(file.body == content)
            try connection.send("GET /empty HTTP/1.1\r\nHost: h\r\n\r\n")
            let empty = try connection.readResponse(hasBody: false)
            #expect(empty.status == 204)
        }
    }

    @Test("a file that cannot be opened is answered 500")
    func missingFile() throws {
        let responder = RecordingResponder { _ in
            HTTPResponse(status: 200, body: .file(path: "/nonexistent/preview/clip.mp4", offset: 0, length: 10))
        }
        let response = try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /clip HTTP/1.1\r\nHost: h\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 500)
        #expect(response.body.isEmpty)
    }

    @Test("HEAD of a bytes body keeps its Content-Length and sends no body")
    func headOfBytes() throws {
        let responder = RecordingResponder { _ in HTTPResponse(status: 200, body: .bytes(Array("hello".utf8))) }
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("HEAD / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
            let head = try connection.readResponse(hasBody: false)
            #expect(head["Content-Length"] == "5")
            #expect(try connection.readResponse().body == Array("hello".utf8))
        }
    }

    @Test(
        "two requests on one connection get two keep-alive responses, answered on the connection's thread or a worker",
        arguments: [ResponderThread.connection, .worker])
    func keepAlive(thread: ResponderThread) throws {
        let responder = RecordingResponder(on: thread)
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            for path in ["/one", "/two"] {
                try connection.send("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n")
                let response = try connection.readResponse()
                #expect(response.status == 200)
                #expect(response["Connection"]?.lowercased() != "close")
            }
            try connection.send("POST /three HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi")
            #expect(try connection.readResponse()["Connection"]?.lowercased() != "close")
        }
        #expect(responder.seenRequests.map(\.path) == ["/one", "/two", "/three"])
    }
}
