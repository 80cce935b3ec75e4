import PreviewCore
import Testing

@Suite struct FeedChangeTests {
    @Test func aChangeReadsBackFromThePrefixAndValueTheScriptAppends() {
        let text = FeedChange.prefix(origin: "ab12", kind: .published, streamId: 42) + " 3"
        #expect(FeedChange(message: text) == FeedChange(origin: "ab12", kind: .published, streamId: 42, value: 3))
    }

    @Test(arguments: [
        "", "ab liked 42", "ab liked 42 3 4", " liked 42 3", "ab shared 42 3", "ab liked 0 3", "ab liked x 3",
        "ab liked 42 -1", "ab liked 42 3.5",
    ])
    func anythingElseIsIgnored(message: String) {
        #expect(FeedChange(message: message) == nil)
    }
}
