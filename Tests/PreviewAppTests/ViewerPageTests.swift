import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("The viewer page compiled into the binary")
struct ViewerPageTests {
    @Test("each file served is its file under Sources/PreviewServer/ViewerPage byte for byte")
    func servedFilesAreTheFiles() throws {
        let app = try AppHarness()
        for (path, name) in [("/", "index.html"), ("/viewer.js", "viewer.js"), ("/viewer.css", "viewer.css")] {
            let file = try Data(
                contentsOf: URL(fileURLWithPath: TestPaths.repositoryRoot + "/Sources/PreviewServer/ViewerPage/" + name)
            )
            let response = app.send("GET", path)
            #expect(response.status == 200, "\(path)")
            #expect(response.bytes == Array(file), "\(path) is not \(name)")
        }
    }

    @Test(
        "the share page's body class (share) is styled only through its descendants: no rule of the sheet styles .share itself"
    )
    func sharePageBodyIsNotStyledAsAControl() throws {
        let sheet = try String(
            contentsOfFile: TestPaths.repositoryRoot + "/Sources/PreviewServer/ViewerPage/viewer.css", encoding: .utf8)
        let page = ShareHandler.page(
            FeedItem(streamId: 1, movieUrl: "https://cdn.example/m", thumbnailUrl: "https://cdn.example/t"),
            clipType: .mp4)
        #expect(page.contains(#"<body class="share">"#))
        // Every selector of every rule, split at commas: `.share` alone (or with a pseudo-class)
        // would put a control's position and background on the share page's body.
        let rules = sheet.replacing(#/\/\*(?s:.*?)\*\//#, with: "")
        let selectors = rules.split(separator: "{").dropLast().compactMap { $0.split(separator: "}").last }
            .flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(selectors.contains(".share main"))
        #expect(selectors.filter { $0 == ".share" || $0.hasPrefix(".share:") } == [])
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
