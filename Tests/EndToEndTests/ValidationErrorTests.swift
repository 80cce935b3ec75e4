import PreviewCore
import PreviewTestSupport
import Testing

/// Bad requests: each refused with its status and machine code, before anything is stored.
@Suite("Request validation errors")
struct ValidationErrorTests {
    @Test("Invalid upload requests are 400 invalid_argument naming the field")
    func invalidUploadRequests() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let cases: [(String, String)] = [
            (#"{"streamId":"abc"}"#, "streamId"),
            (#"{"streamId":"0"}"#, "streamId"),
            (#"{"streamId":0}"#, "streamId"),
            (#"{"streamId":"-1"}"#, "streamId"),
            (#"{}"#, "streamId"),
            (#"{"streamId":"42","movieContentType":"video/avi"}"#, "movieContentType"),
            (#"{"streamId":"42","thumbnailContentType":"image/gif"}"#, "thumbnailContentType"),
            (#"{"streamId":"42","movieContentType":"image/jpeg"}"#, "movieContentType"),
            (#"{"streamId":"42","movieBytes":10485761}"#, "movieBytes"),
            (#"{"streamId":"42","movieBytes":"-5"}"#, "movieBytes"),
            (#"{"streamId":"42","thumbnailBytes":1048577}"#, "thumbnailBytes"),
        ]
        for (body, field) in cases {
            let reply = try api.postJSON("/api/preview/post", body, token: token)
            expectError(reply, status: 400, code: "invalid_argument", target: field)
        }
        // The limits themselves are allowed.
        let atLimit = #"{"streamId":"42","movieBytes":10485760,"thumbnailBytes":1048576}"#
        #expect(try api.postJSON("/api/preview/post", atLimit, token: token).status == 200)
    }

    @Test("Malformed bodies are 400, oversized ones 413, unknown types 415")
    func malformedBodies() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        for body in [#"{"streamId":"42""#, "not json", #"{"streamId":true}"#, #"["streamId"]"#] {
            expectError(
                try api.postJSON("/api/preview/post", body, token: token), status: 400, code: "invalid_argument")
        }
        let padding = String(repeating: " ", count: 70 * 1024)
        let huge = try api.postJSON("/api/preview/post", #"{"streamId":"42"\#(padding)}"#, token: token)
        expectError(huge, status: 413, code: "payload_too_large")
        let plain = try api.send(
            "POST", "/api/preview/post", headers: [("Content-Type", "text/plain")],
            body: Array(#"{"streamId":"42"}"#.utf8),
            token: token)
        expectError(plain, status: 415, code: "unsupported_media_type")
        // A body without Content-Type says nothing about its format (docs/manual/api.md: "chosen by Content-Type").
        let none = try api.send("POST", "/api/preview/post", body: Array(#"{"streamId":"42"}"#.utf8), token: token)
        expectError(none, status: 415, code: "unsupported_media_type", target: "Content-Type")
    }

    @Test("An API body declared over 64 KiB is refused with 413 on its head: no 100 Continue, connection closed")
    func oversizedDeclaredBodyIsRefusedBeforeItIsRead() throws {
        let service = try ServiceProcess()
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let target = try RawHTTPTarget(service.baseURL + "/api/preview/post")
        let connection = try RawHTTPConnection(target)
        try connection.send(
            target.head(
                "POST",
                [
                    ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                    ("Content-Length", String(10 * 1024 * 1024)), ("Expect", "100-continue"),
                ]))
        // No body byte is sent: a server that read (or drained) the body first would never answer.
        let response = try connection.readResponse()
        #expect(response.status == 413, "the first answer is the refusal, not 100 Continue")
        #expect(try ErrorResponse(json: response.body).code == "payload_too_large")
        #expect(response["Connection"]?.lowercased() == "close")
        #expect(try connection.closedByServer())
    }

    @Test("An Accept that admits neither JSON nor protobuf is 406 not_acceptable, in JSON; q=0 excludes a format")
    func notAcceptable() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        for accept in ["text/html", "application/json;q=0, application/x-protobuf;q=0", "image/*, */*;q=0"] {
            let reply = try api.send("GET", "/api/feed", headers: [("Accept", accept)])
            expectError(reply, status: 406, code: "not_acceptable", target: "Accept")
            #expect(reply.headers["Content-Type"] == "application/json", "\(accept)")
        }
        let lowJSON = try api.send("GET", "/api/feed", headers: [("Accept", "application/json;q=0.1, application/*")])
        #expect(lowJSON.status == 200)
        #expect(lowJSON.headers["Content-Type"] == "application/x-protobuf", "application/* weighs more than q=0.1")
        let wildcard = try api.send("GET", "/api/feed", headers: [("Accept", "application/*")])
        #expect(wildcard.headers["Content-Type"] == "application/json", "application/* admits JSON")
        let anything = try api.send("GET", "/api/feed", headers: [("Accept", "text/html, */*;q=0.1")])
        #expect(anything.status == 200)
        #expect(try api.send("GET", "/healthz", headers: [("Accept", "text/html")]).status == 200)
    }

    @Test("Unknown routes are 404 not_found and known routes with another method 405")
    func routes() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        for path in ["/api/nope", "/index.html", "/api/preview", "/api/streams/42/dislike", "/api/feed/x"] {
            expectError(try api.send("GET", path), status: 404, code: "not_found")
        }
        for (method, path) in [
            ("GET", "/api/preview/post"), ("PUT", "/api/preview/commit"), ("POST", "/api/feed"),
            ("GET", "/api/streams/42/like"), ("GET", "/api/preview/42"), ("POST", "/objects/x"), ("POST", "/healthz"),
        ] {
            let reply = try api.send(method, path)
            expectError(reply, status: 405, code: "method_not_allowed")
        }
    }

    @Test("Commit errors: unknown or malformed upload IDs, missing, empty and mislabelled objects; nothing published")
    func commitErrors() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42, 43])

        expectError(
            try api.commit(streamId: 42, uploadId: String(repeating: "0f", count: 16), token: token), status: 409,
            code: "upload_not_found", target: "uploadId")
        for bad in ["xyz", "", String(repeating: "a", count: 31), String(repeating: "g", count: 32)] {
            expectError(
                try api.commit(streamId: 42, uploadId: bad, token: token), status: 400, code: "invalid_argument",
                target: "uploadId")
        }
        expectError(
            try api.postJSON(
                "/api/preview/commit", #"{"streamId":"0","uploadId":"\#(String(repeating: "a", count: 32))"}"#,
                token: token),
            status: 400, code: "invalid_argument", target: "streamId")

        // Junk declared as video/mp4 and PUT with the right headers: stored, then refused by its leading bytes.
        let junk = TestMedia.junk()
        let thumbnail = TestMedia.jpeg()
        let issued = try api.issue(streamId: 42, movie: junk, thumbnail: thumbnail, token: token)
        expectError(
            try api.commit(streamId: 43, uploadId: issued.uploadId, token: token), status: 409, code: "upload_not_found"
        )
        try api.putBoth(issued, movie: junk, thumbnail: thumbnail)
        expectError(
            try api.commit(streamId: 42, uploadId: issued.uploadId, token: token), status: 422,
            code: "object_content_mismatch", target: "movie")

        // Right leading bytes, but no movie box: a cut-off recording.
        let cutOff = TestMedia.mp4WithoutMovieBox()
        let truncated = try api.issue(streamId: 42, movie: cutOff, thumbnail: thumbnail, token: token)
        try api.putBoth(truncated, movie: cutOff, thumbnail: thumbnail)
        expectError(
            try api.commit(streamId: 42, uploadId: truncated.uploadId, token: token), status: 422,
            code: "object_content_mismatch", target: "movie")

        // A JPEG thumbnail that is really a PNG.
        let movie = TestMedia.mp4()
        let png = TestMedia.png()
        let mislabelled = try api.issue(streamId: 42, movie: movie, thumbnail: png, token: token)
        try api.putBoth(mislabelled, movie: movie, thumbnail: png)
        expectError(
            try api.commit(streamId: 42, uploadId: mislabelled.uploadId, token: token), status: 422,
            code: "object_content_mismatch", target: "thumbnail")

        // No declared sizes: an empty clip is refused on its PUT's head, so commit finds no clip.
        let posted = try api.postJSON("/api/preview/post", #"{"streamId":"42"}"#, token: token)
        let undeclared = try posted.json(StreamPreviewPostResponse.self)
        expectError(
            try api.put(undeclared.movieBodyUrl, headers: undeclared.movieHeaders, body: []), status: 400,
            code: "invalid_argument", target: "Content-Length")
        #expect(
            try api.put(undeclared.movieThumbnailBodyUrl, headers: undeclared.thumbnailHeaders, body: thumbnail).status
                == 200)
        expectError(
            try api.commit(streamId: 42, uploadId: undeclared.uploadId, token: token), status: 409,
            code: "object_missing", target: "movie")

        #expect(try api.feedItems().isEmpty, "no refused commit published anything")
        expectError(try api.send("POST", "/api/streams/42/like", token: token), status: 404, code: "stream_not_live")
    }
}
