import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp

@Suite("The viewer page compiled into the binary")
struct ViewerPageTests {
    @Test("each file served is its file under Sources/PreviewApp/ViewerPage byte for byte")
    func servedFilesAreTheFiles() throws {
        let app = try AppHarness()
        for (path, name) in [("/", "index.html"), ("/viewer.js", "viewer.js"), ("/viewer.css", "viewer.css")] {
            let file = try Data(
                contentsOf: URL(fileURLWithPath: TestPaths.repositoryRoot + "/Sources/PreviewApp/ViewerPage/" + name))
            let response = app.send("GET", path)
            #expect(response.status == 200, "\(path)")
            #expect(response.bytes == Array(file), "\(path) is not \(name)")
        }
    }

    @Test("the policy allows the object store's origin for images and media, and nothing inline")
    func policy() {
        let policy = ViewerPageHandler.policy(objectOrigins: ["https://bucket.s3.example.com"])
        #expect(policy.contains("img-src 'self' https://bucket.s3.example.com;"))
        #expect(policy.contains("media-src 'self' https://bucket.s3.example.com;"))
        #expect(!policy.contains("unsafe"))
        #expect(
            ViewerPageHandler.origin(of: "https://Bucket.example.com:8443/a/b?x=1") == "https://bucket.example.com:8443"
        )
        for bad in ["javascript:alert(1)", "https://", "https://a b/", "https://x;y/", "ftp://h/"] {
            #expect(ViewerPageHandler.origin(of: bad) == nil, "\(bad)")
        }
    }
}
