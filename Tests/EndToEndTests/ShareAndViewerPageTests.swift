import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Share links (`/s/{id}`) and the viewer page (`/`, `/viewer.js`, `/viewer.css`).
@Suite("Share links and the viewer page")
struct ShareAndViewerPageTests {
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    @Test(
        "A browser gets a page with Open Graph and Twitter tags for the live clip; others are sent to the clip; both only for the client's own cache"
    )
    func shareLink() throws {
        let stream = try PublishedStream()
        let api = stream.api
        let page = try api.send("GET", "/s/42", headers: [("Accept", Self.browserAccept)])
        try #require(page.status == 200, "\(page.status) \(page.text)")
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        let item = try #require(try api.feedItems().first)
        let html = page.text
        let escapedMovie = item.movieUrl.replacingOccurrences(of: "&", with: "&amp;")
        let escapedThumbnail = item.thumbnailUrl.replacingOccurrences(of: "&", with: "&amp;")
        for tag in [
            #"<meta property="og:video" content="\#(escapedMovie)">"#,
            #"<meta property="og:image" content="\#(escapedThumbnail)">"#,
            #"<meta property="og:video:type" content="video/mp4">"#,
            #"<meta property="og:video:width" content="\#(item.width)">"#,
            #"<meta property="og:video:height" content="\#(item.height)">"#,
            #"<meta name="twitter:card" content="summary_large_image">"#,
            #"<meta name="twitter:image" content="\#(escapedThumbnail)">"#,
            #"<video src="\#(escapedMovie)""#,
        ] {
            #expect(html.contains(tag), "missing \(tag)")
        }
        let origins = Set(["'self'"] + [item.movieUrl, item.thumbnailUrl].compactMap(Self.origin(of:)))
            .sorted().joined(separator: " ")
        #expect(
            page.headers["Content-Security-Policy"]
                == "default-src 'none'; style-src 'self'; img-src \(origins); media-src \(origins); base-uri 'none'; "
                + "form-action 'none'; frame-ancestors 'none'", "no script, and never framed")
        try expectCacheLifetime(page, scope: "private")
        #expect(page.headers["Vary"] == "Accept")

        for accept in ["*/*", "video/mp4", "application/json"] {
            let redirect = try api.send("GET", "/s/42", headers: [("Accept", accept)])
            #expect(redirect.status == 302, "Accept \(accept)")
            let location = try #require(redirect.headers["Location"])
            #expect(try api.send("GET", location).body == TestMedia.mp4())
            // A shared cache keying on the URL alone would otherwise give this to a browser.
            try expectCacheLifetime(redirect, scope: "private")
            #expect(redirect.headers["Vary"] == "Accept")
        }
        let thumbnail = try api.send("GET", "/s/42/thumbnail", headers: [("Accept", Self.browserAccept)])
        #expect(thumbnail.status == 302)
        try expectCacheLifetime(thumbnail, scope: "public")
        #expect(thumbnail.headers["Vary"] == nil, "the same answer for every client")
        #expect(try api.send("GET", try #require(thumbnail.headers["Location"])).body == TestMedia.jpeg())
    }

    /// `<scope>, max-age=N`: kept at most a minute, never past the URLs it carries.
    func expectCacheLifetime(_ reply: Reply, scope: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let control = try #require(reply.headers["Cache-Control"], sourceLocation: sourceLocation)
        let maxAge = try #require(
            control.split(separator: "=").last.flatMap { Int($0) }, sourceLocation: sourceLocation)
        #expect(
            control == "\(scope), max-age=\(maxAge)" && maxAge > 0 && maxAge <= 60, "\(control)",
            sourceLocation: sourceLocation)
    }

    /// `scheme://host:port` of an object URL, as the page's policy names it.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            let host = components.host
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    @Test("A share link of a stream that is not live is 404 stream_not_live; a bad ID is 400")
    func notLive() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        for path in ["/s/777", "/s/777/thumbnail"] {
            expectError(
                try api.send("GET", path, headers: [("Accept", "application/json")]), status: 404,
                code: "stream_not_live")
        }
        expectError(try api.send("GET", "/s/x1"), status: 400, code: "invalid_argument")
        #expect(try api.send("POST", "/s/1").status == 405)
    }

    @Test("The viewer page is served with a strict CSP and an ETag; a matching If-None-Match is 304")
    func viewerPage() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let page = try api.send("GET", "/", headers: [("Accept", Self.browserAccept)])
        try #require(page.status == 200)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        let policy = try #require(page.headers["Content-Security-Policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self';"))
        #expect(policy.contains("connect-src 'self'") && !policy.contains("unsafe-inline"))
        #expect(page.text.contains(#"viewer.js""#))
        let etag = try #require(page.headers["ETag"])
        #expect(try api.send("GET", "/", headers: [("If-None-Match", etag)]).status == 304)
        for (path, type) in [
            ("/viewer.js", "text/javascript; charset=utf-8"), ("/viewer.css", "text/css; charset=utf-8"),
        ] {
            let file = try api.send("GET", path)
            #expect(file.status == 200 && file.headers["Content-Type"] == type && !file.body.isEmpty, "\(path)")
        }
    }

    @Test("/favicon.ico is 204, kept a day, so browsers stop asking and log no error")
    func favicon() throws {
        let service = try ServiceProcess()
        let reply = try APIClient(service).send("GET", "/favicon.ico")
        #expect(reply.status == 204)
        #expect(reply.headers["Cache-Control"] == "public, max-age=86400")
    }

    @Test("--no-viewer-page turns the page off")
    func viewerPageOff() throws {
        let service = try ServiceProcess(arguments: ["--no-viewer-page"])
        let api = try APIClient(service)
        for path in ["/", "/viewer.js", "/viewer.css"] {
            expectError(
                try api.send("GET", path, headers: [("Accept", "application/json")]), status: 404, code: "not_found")
        }
    }
}
