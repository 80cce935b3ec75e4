import PreviewCore

/// `GET /api/feed/events`: server-sent events of the live list (`FeedEvents`). Anonymous, like
/// the feed without a token: the events are the same for every viewer. A client resumes with
/// `Last-Event-ID` (what `EventSource` sends when it reconnects) or, for a first connection
/// that knows where it stopped, `?lastEventId=`; an ID that is not one of ours gets `reset`.
struct FeedEventsHandler: Sendable {
    let events: FeedEvents?

    func events(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let events else { throw APIError(.notFound, "event streams are off in this process") }
        let connection = try events.open(lastEventID: Self.lastEventID(request))
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/event-stream")
        headers.add("Cache-Control", "no-store")
        // nginx would otherwise hold events back to fill its buffer.
        headers.add("X-Accel-Buffering", "no")
        return HTTPResponse(status: 200, headers: headers, body: .stream(connection))
    }

    /// The ID the client last saw: nil for none; one that does not parse is past every real
    /// ID, so the log answers it with `reset`.
    static func lastEventID(_ request: HTTPRequest) -> FeedEventID? {
        let text = request.headers["Last-Event-ID"] ?? queryValue("lastEventId", in: request.rawQuery)
        guard let text, !text.isEmpty else { return nil }
        return FeedEventID(text) ?? FeedEventID(milliseconds: .max, sequence: .max)
    }

    private static func queryValue(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name { return String(parts[1]) }
        }
        return nil
    }
}
