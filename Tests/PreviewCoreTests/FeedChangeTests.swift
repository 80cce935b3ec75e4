import PreviewCore
import Testing

@Suite struct FeedChangeTests {
    @Test func aChangeReadsBackFromThePrefixAndValueTheScriptAppends() {
        let text = FeedChange.prefix(origin: "ab12", kind: .published, streamId: 42) + " 3"
        #expect(FeedChange(message: text) == FeedChange(origin: "ab12", kind: .published, streamId: 42, value: 3))
    }

    @Test func aLikeCarriesItsCountVersionAndSequence() throws {
        let text = FeedChange.prefix(origin: "ab12", kind: .liked, streamId: 42) + " 7 3 12"
        let change = try #require(FeedChange(message: text))
        #expect(change.likeCount == LikeCount(likes: 7, version: 3, sequence: 12))
    }

    @Test(arguments: [
        "", "ab liked 42", "ab liked 42 3", "ab liked 42 3 4", "ab liked 42 3 4 5 6", " liked 42 3 1 1",
        "ab shared 42 3", "ab liked 0 3 1 1", "ab liked x 3 1 1", "ab liked 42 -1 1 1", "ab liked 42 3.5 1 1",
        "ab liked 42 3 1 -1", "ab published 42 3 1", "ab removed 42",
    ])
    func anythingElseIsIgnored(message: String) {
        #expect(FeedChange(message: message) == nil)
    }

    @Test func aCountIsNewerByVersionThenBySequence() {
        let count = LikeCount(likes: 5, version: 3, sequence: 4)
        #expect(count.isNewer(thanVersion: 3, sequence: 3))
        #expect(!count.isNewer(thanVersion: 3, sequence: 4))
        #expect(!count.isNewer(thanVersion: 3, sequence: 9))
        #expect(count.isNewer(thanVersion: 2, sequence: 90))
        #expect(!count.isNewer(thanVersion: 4, sequence: 0))
    }
}
