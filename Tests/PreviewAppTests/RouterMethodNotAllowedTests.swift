import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("A 405 names the methods the route takes in Allow")
struct RouterMethodNotAllowedTests {
    @Test(
        "a known path with another method is 405 method_not_allowed with Allow",
        arguments: [
            ("GET", "/api/preview/post", "POST"), ("PUT", "/api/streams/42/like", "POST, DELETE"),
            ("POST", "/api/feed", "GET"), ("PATCH", "/objects/previews/42/a/movie.mp4", "GET, HEAD, PUT, DELETE"),
        ])
    func allowNamesTheMethods(_ method: String, _ path: String, _ allowed: String) throws {
        let app = try AppHarness()
        let response = app.send(method, path)
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == allowed)
    }
}
