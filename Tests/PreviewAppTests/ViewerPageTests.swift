import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp

@Suite("The viewer page compiled into the binary")
struct ViewerPageTests {
    @Test(
        "each file compiled in is its file under Sources/PreviewApp/ViewerPage byte for byte (run scripts/viewer/embed.sh)"
    )
    func embeddedFilesAreTheFiles() throws {
        for (name, text) in [
            ("index.html", ViewerPageFiles.page), ("viewer.js", ViewerPageFiles.script),
            ("viewer.css", ViewerPageFiles.style),
        ] {
            let file = try Data(
                contentsOf: URL(fileURLWithPath: TestPaths.repositoryRoot + "/Sources/PreviewApp/ViewerPage/" + name))
            #expect(
                Array(text.utf8) == Array(file),
                "\(name) differs from the copy compiled in: run scripts/viewer/embed.sh")
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
