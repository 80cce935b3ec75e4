import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The router decides on the head where each route is answered: on the connection's I/O thread
/// when it needs only memory, signing and Redis; on a worker when it may wait on storage.
@Suite struct RouterResponderThreadTests {
    static func thread(_ app: AppHarness, _ method: String, _ path: String) -> ResponderThread? {
        let head = HTTPRequestHead(method: method, path: path, rawQuery: "", headers: HTTPHeaders())
        if case .buffer(_, let thread) = app.router.admit(head) { return thread }
        return nil
    }

    @Test func routesThatNeedOnlyRedisAreAnsweredOnTheConnectionsThreadAndThoseThatMayWaitOnStorageOnAWorker() throws {
        let app = try AppHarness()
        let onConnection = [
            ("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/api/feed"), ("POST", "/api/preview/post"),
            ("DELETE", "/api/preview/7"), ("POST", "/api/streams/7/like"), ("DELETE", "/api/streams/7/like"),
            ("POST", "/api/streams/7/seen"), ("GET", "/nowhere"), ("PATCH", "/api/feed"),
        ]
        for (method, path) in onConnection {
            #expect(Self.thread(app, method, path) == .connection, "\(method) \(path)")
        }
        let onWorker = [
            ("POST", "/api/preview/commit"), ("GET", "/objects/previews/7/a/movie.mp4"),
            ("HEAD", "/objects/previews/7/a/movie.mp4"), ("DELETE", "/objects/previews/7/a/movie.mp4"),
        ]
        for (method, path) in onWorker {
            #expect(Self.thread(app, method, path) == .worker, "\(method) \(path)")
        }
    }
}
