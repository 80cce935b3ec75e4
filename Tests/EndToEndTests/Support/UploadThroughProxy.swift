import Foundation
import PreviewCore
import PreviewHTTPClient
import PreviewTestSupport
import Synchronization

/// A real `serve` whose public URL, so every signed object URL it issues, is a `ScriptedProxy` in front of it;
/// a streamer's token for stream 42; a clip and a thumbnail on disk. `streampreview upload` runs against it while
/// the script injects faults: each request goes to `script` with its place among the clip's PUTs.
final class UploadThroughProxy: Sendable {
    /// One request as the script sees it.
    struct Step {
        var request: ProxiedRequest
        /// 1 for the clip's first PUT, 2 for its second...; nil for any other request.
        var movieAttempt: Int?
        /// For the API routes (when `apiThroughProxy`): 1 for the first request to this path, and so on.
        var pathAttempt: Int
        var service: ServiceProcess
        var proxy: ScriptedProxy
    }

    let proxy: ScriptedProxy
    let service: ServiceProcess
    let token: String
    let folder: String
    let movie: [UInt8]
    let thumbnail: [UInt8]
    /// Where `upload --server` points: the service itself, or the proxy (`apiThroughProxy`).
    let server: String
    /// What the script needs, set once both exist; cleared at the end (the proxy's script holds it).
    private let parts: Parts

    private final class Parts: Sendable {
        let value = Mutex<(service: ServiceProcess, proxy: ScriptedProxy)?>(nil)
        let counts = Mutex<[String: Int]>([:])
    }

    var clipPath: String { folder + "/clip.mp4" }
    var thumbnailPath: String { folder + "/thumb.jpg" }

    init(
        testClock: Bool = false, movieSize: Int = 4 << 20, apiThroughProxy: Bool = false,
        script: @escaping @Sendable (Step) -> ProxyAction
    ) throws {
        let parts = Parts()
        self.parts = parts
        let proxy = try ScriptedProxy { request in
            guard let (service, proxy) = parts.value.withLock({ $0 }) else { return .forward }
            let isMovie = request.method == "PUT" && request.header("Content-Type") == "video/mp4"
            let key = isMovie ? "movie" : request.method + " " + request.path
            let count = parts.counts.withLock { counts in
                counts[key, default: 0] += 1
                return counts[key, default: 0]
            }
            return script(
                Step(
                    request: request, movieAttempt: isMovie ? count : nil, pathAttempt: count, service: service,
                    proxy: proxy))
        }
        self.proxy = proxy
        let service = try ServiceProcess(arguments: ["--public-url", proxy.url], testClock: testClock)
        self.service = service
        try proxy.setUpstream(service.baseURL)
        parts.value.withLock { $0 = (service, proxy) }
        token = try service.token(sub: "alice", role: "streamer", streams: [42])
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-upload")
        self.folder = folder
        movie = TestMedia.mp4(size: movieSize, seed: 5)
        thumbnail = TestMedia.jpeg(size: 900, seed: 5)
        try Data(movie).write(to: URL(fileURLWithPath: folder + "/clip.mp4"))
        try Data(thumbnail).write(to: URL(fileURLWithPath: folder + "/thumb.jpg"))
        server = apiThroughProxy ? proxy.url : service.baseURL
    }

    deinit {
        parts.value.withLock { $0 = nil }
        proxy.stop()
        try? FileManager.default.removeItem(atPath: folder)  // best effort
    }

    /// Runs `streampreview upload` for stream 42 with `extra` options. `sharedClock`: the command reads the
    /// server's test clock too (as a client whose clock agrees); else the real clock.
    func upload(_ extra: [String] = [], sharedClock: Bool = true) throws -> ProcessResult {
        let arguments =
            ["upload", "--server", server, "--token", token, "--stream", "42"] + extra + [clipPath, thumbnailPath]
        return sharedClock ? try service.run(arguments) : try ServiceProcess.runBinary(arguments)
    }

    /// How many times the clip was PUT through the proxy.
    var movieAttempts: Int {
        proxy.requests.filter { $0.method == "PUT" && $0.header("Content-Type") == "video/mp4" }.count
    }

    /// How many requests for `path` went through the proxy.
    func attempts(_ method: String, _ path: String) -> Int {
        proxy.requests.filter { $0.method == method && $0.path == path }.count
    }

    /// The feed item `upload` printed.
    func printedItem(_ result: ProcessResult) throws -> FeedItem {
        try FeedItem(json: Array(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
    }

    /// The bytes the store serves at a signed GET URL (through the proxy, which forwards them).
    func served(_ url: String) throws -> [UInt8] {
        let response = try HTTPClient().send(HTTPClientRequest(method: "GET", url: url))
        guard response.status == 200 else {
            throw ServiceProcessError(
                "GET \(url): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return response.body
    }

    /// A canned JSON error answer, as the service writes them.
    static func answer(_ status: Int, code: String, message: String, retryAfter: Int? = nil) -> ProxyAction {
        var headers = [("Content-Type", "application/json")]
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        return .respond(
            RawHTTPServer.response(
                status, "Error", headers: headers, body: Array(#"{"code":"\#(code)","message":"\#(message)"}"#.utf8)))
    }
}

extension ProcessResult {
    /// stderr's lines that start with `prefix`.
    func stderrLines(startingWith prefix: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }
}
