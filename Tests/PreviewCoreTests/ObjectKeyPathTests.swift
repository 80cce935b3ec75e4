import PreviewCore
import Testing

@Suite struct ObjectKeyPathTests {
    @Test(arguments: ["previews/42/abc/movie.mp4", "a", "x y/ü.jpg", String(repeating: "k", count: 1024)])
    func keysThatStayInsideTheObjectsFolderAreSafe(key: String) {
        #expect(ObjectKeyPath.isSafe(key))
    }

    @Test(arguments: [
        "", "/etc/passwd", "a/../../b", "..", ".", "a/./b", "a//b", "a/", "a\u{0}b",
        String(repeating: "k", count: 1025),
    ])
    func keysThatCouldLeaveTheObjectsFolderOrNameNoFileAreUnsafe(key: String) {
        #expect(!ObjectKeyPath.isSafe(key))
    }
}
