import PreviewCore

/// `GET /s/{streamId}` and `/s/{streamId}/thumbnail`: links to a live stream that people paste
/// into chats. `/s/{streamId}` is the stream's tracking link: a viewer's browser following it
/// (`Accept: text/html`, not a link previewer or crawler by its `User-Agent`), or any client
/// sending a bearer token (an app), counts an open of the live version (`FigureHandlers`), then
/// a browser goes on to the stream's watch URL when it has one. Otherwise a browser (and every
/// link previewer) gets a small page with Open Graph and Twitter card tags, so the chat shows
/// the preview, and a player; anything else, and the thumbnail link, a 302 to the object's
/// signed URL. 404 `stream_not_live` when there is no live preview. Answers that counted are
/// never stored (`no-store`: each follow must reach the server to count); the others are cached
/// no longer than the URLs they carry stay valid, and at most a minute, since a new preview
/// replaces them; the two answers of `/s/{streamId}` only in the client's own cache.
struct ShareHandler: Sendable {
    let context: AppContext

    func share(_ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        let browser = WireFormat.acceptsHTML(request.headers["Accept"])
        if LinkPreviewers.isPreviewer(userAgent: request.headers["User-Agent"]) {
            if browser { context.metrics.figures.recordPreviewer() }
            return try answer(request, streamId: streamId, browser: browser)
        }
        guard browser || request.headers["Authorization"] != nil else {
            return try answer(request, streamId: streamId, browser: browser)
        }
        let watchURL: String
        if context.store.figures.enabled {
            let viewer = context.figureViewer(of: request)
            guard let counted = try context.store.count(.open, streamId: streamId, viewer: viewer, now: context.now)
            else { throw notLive(streamId) }
            context.metrics.figures.record(.open)
            watchURL = counted.watchURL
        } else {
            watchURL = try context.store.watchURL(streamId: streamId)
        }
        var response: HTTPResponse
        if browser, !watchURL.isEmpty {
            // Vary as the share link's other answers: a client that did not ask for HTML gets the clip.
            response = HTTPResponse(status: 302, headers: HTTPHeaders([("Location", watchURL), ("Vary", "Accept")]))
        } else {
            response = try answer(request, streamId: streamId, browser: browser)
        }
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// The page for a browser, else the redirect to the clip.
    private func answer(_ request: HTTPRequest, streamId: Int64, browser: Bool) throws -> HTTPResponse {
        let (item, lifetime, clipType) = try liveItem(streamId)
        if browser {
            var headers = cacheHeaders(lifetime, scope: .byAccept)
            headers.add("Content-Type", "text/html; charset=utf-8")
            headers.add("Content-Security-Policy", Self.policy(item))
            headers.add("X-Content-Type-Options", "nosniff")
            headers.add("Referrer-Policy", "no-referrer")
            return HTTPResponse(
                status: 200, headers: headers, body: .bytes(Array(Self.page(item, clipType: clipType).utf8)))
        }
        return redirect(to: item.movieUrl, lifetime: lifetime, scope: .byAccept)
    }

    func thumbnail(_ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        let (item, lifetime, _) = try liveItem(streamId)
        return redirect(to: item.thumbnailUrl, lifetime: lifetime, scope: .shared)
    }

    /// The stream's item with URLs minted now, and how many seconds an answer built on them may
    /// be kept.
    /// The stream's feed item, how long an answer carrying its URLs may be cached, and the clip's type.
    private func liveItem(_ streamId: Int64) throws -> (FeedItem, Int64, MediaType) {
        let now = context.now
        guard let stream = try context.store.liveStream(streamId: streamId), stream.preview.expiresAt > now else {
            throw notLive(streamId)
        }
        let item = try context.feedItem(stream, seen: false, liked: false, now: now)
        let urlsValid = context.feedCache.urlGrid.expiry(at: now) - now
        let lifetime = max(0, min(Self.maxAgeSeconds, urlsValid, stream.preview.expiresAt - now))
        return (item, lifetime, stream.preview.movieType)
    }

    static let maxAgeSeconds: Int64 = 60

    private func notLive(_ streamId: Int64) -> APIError {
        APIError(.streamNotLive, "stream \(streamId) has no live preview", target: "streamId")
    }

    /// Who may keep an answer.
    private enum CacheScope {
        /// The same answer for every client: any cache.
        case shared
        /// The page or the redirect, by `Accept`, under one URL: only the client's own cache,
        /// which honours `Vary`. A shared cache that ignores `Vary` (many CDNs key on the URL
        /// alone) would otherwise hand the page to a player or the redirect to a browser.
        case byAccept
    }

    private func cacheHeaders(_ lifetime: Int64, scope: CacheScope) -> HTTPHeaders {
        var headers = HTTPHeaders()
        switch scope {
        case .shared:
            headers.add("Cache-Control", "public, max-age=\(lifetime)")
        case .byAccept:
            headers.add("Cache-Control", "private, max-age=\(lifetime)")
            headers.add("Vary", "Accept")
        }
        return headers
    }

    private func redirect(to url: String, lifetime: Int64, scope: CacheScope) -> HTTPResponse {
        var headers = cacheHeaders(lifetime, scope: scope)
        headers.add("Location", url)
        return HTTPResponse(status: 302, headers: headers)
    }

    /// No script, objects from the store's origin only, and never inside another site's frame
    /// (a page that frames the player could dress it up as its own).
    private static func policy(_ item: FeedItem) -> String {
        let origins = ["'self'"] + [item.movieUrl, item.thumbnailUrl].compactMap(ViewerPageHandler.origin(of:))
        let objects = Array(Set(origins)).sorted().joined(separator: " ")
        return "default-src 'none'; style-src 'self'; img-src \(objects); media-src \(objects); base-uri 'none'; "
            + "form-action 'none'; frame-ancestors 'none'"
    }

    /// The page: link-preview tags in its head (the clip's own type: a QuickTime clip is not
    /// announced as MP4), the clip playing in its body. The streamer's title names the page and
    /// the preview, and the alt text describes the image and the clip.
    static func page(_ item: FeedItem, clipType: MediaType) -> String {
        let title = item.details.title.isEmpty ? "Stream \(item.streamId) is live" : item.details.title
        let movie = HTMLText.escape(item.movieUrl)
        let thumbnail = HTMLText.escape(item.thumbnailUrl)
        let size = item.width > 0 && item.height > 0
        var meta = [
            ("property", "og:type", "video.other"), ("property", "og:title", title),
            ("property", "og:image", item.thumbnailUrl), ("property", "og:video", item.movieUrl),
            ("property", "og:video:type", clipType.rawValue),
            ("name", "twitter:card", "summary_large_image"), ("name", "twitter:title", title),
            ("name", "twitter:image", item.thumbnailUrl),
        ]
        if item.movieUrl.hasPrefix("https://") { meta.append(("property", "og:video:secure_url", item.movieUrl)) }
        if size {
            meta += [
                ("property", "og:video:width", String(item.width)),
                ("property", "og:video:height", String(item.height)),
                ("property", "og:image:width", String(item.width)),
                ("property", "og:image:height", String(item.height)),
            ]
        }
        if !item.details.altText.isEmpty {
            meta += [
                ("property", "og:image:alt", item.details.altText), ("name", "twitter:image:alt", item.details.altText),
            ]
        }
        let tags = meta.map { "<meta \($0.0)=\"\($0.1)\" content=\"\(HTMLText.escape($0.2))\">" }
        let dimensions = size ? " width=\"\(item.width)\" height=\"\(item.height)\"" : ""
        let label = item.details.altText.isEmpty ? "" : " aria-label=\"\(HTMLText.escape(item.details.altText))\""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escape(title))</title>
            \(tags.joined(separator: "\n"))
            <link rel="stylesheet" href="/viewer.css">
            </head>
            <body class="share">
            <main>
            <h1>\(HTMLText.escape(title))</h1>
            <video src="\(movie)" poster="\(thumbnail)"\(dimensions)\(label) autoplay muted loop playsinline controls></video>
            <p><a href="/">All live streams</a></p>
            </main>
            </body>
            </html>

            """
    }
}

/// Text made safe for HTML.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
