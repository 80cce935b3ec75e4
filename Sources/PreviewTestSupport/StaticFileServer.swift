// The files of one folder over HTTP on loopback, as a CDN serves a live HLS stream. Linux only.
import Foundation

/// GET and HEAD of the files directly in `folder` (no subfolders), on 127.0.0.1 through
/// `RawHTTPServer`; anything else is 404. Read at each request, so a playlist rewritten by an
/// encoder is served as it is now.
public final class StaticFileServer: Sendable {
    public let folder: String
    private let server: RawHTTPServer

    public init(folder: String) throws {
        self.folder = folder
        server = try RawHTTPServer { request in Self.answer(request, folder: folder) }
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:PORT`; a file is at `url + "/" + name`.
    public var url: String { server.url }

    public func stop() { server.stop() }

    /// How many requests have arrived (ffmpeg's reads of the playlist and segments).
    public var requestCount: Int { server.requests.count }

    static func answer(_ request: CapturedRequest, folder: String) -> ServerAction {
        let parts = request.requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" || parts[0] == "HEAD" else {
            return .respond(RawHTTPServer.response(405, "Method Not Allowed"))
        }
        let path = parts[1].prefix { $0 != "?" }
        let name = path.dropFirst()
        guard path.hasPrefix("/"), !name.isEmpty, !name.contains("/"), !name.hasPrefix("."),
            let data = FileManager.default.contents(atPath: folder + "/" + name)
        else { return .respond(RawHTTPServer.response(404, "Not Found")) }
        return .respond(
            RawHTTPServer.response(
                200, headers: [("Content-Type", contentType(of: String(name))), ("Cache-Control", "no-cache")],
                body: [UInt8](data), omitBody: parts[0] == "HEAD"))
    }

    private static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "ts": return "video/mp2t"
        case "mp4", "m4s": return "video/mp4"
        default: return "application/octet-stream"
        }
    }
}
