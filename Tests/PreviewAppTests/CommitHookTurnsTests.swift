import Foundation
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `CommitHookTurns` with threads standing in for commits: how many call at once, who waits,
/// in what order turns are handed out, and how long a wait lasts.
@Suite("Commit hook turns")
struct CommitHookTurnsTests {
    typealias Claim = CommitHookTurns.Claim

    /// A `take` on a thread of its own; its admission once it came.
    final class Taker: Sendable {
        private let admission = Mutex<CommitHookTurns.Admission?>(nil)

        init(_ turns: CommitHookTurns, _ claim: Claim) {
            Thread.detachNewThread { [self] in
                let result = turns.take(claim)
                admission.withLock { $0 = result }
            }
        }

        var result: CommitHookTurns.Admission? { admission.withLock { $0 } }

        var wasGranted: Bool {
            if case .granted? = result { return true }
            return false
        }
    }

    static func turns(calls: Int, waiting: Int, maxWaitSeconds: Double = 60) -> CommitHookTurns {
        CommitHookTurns(limits: .init(calls: calls, waiting: waiting, maxWaitSeconds: maxWaitSeconds))
    }

    @Test("one call per upload and per subject, whatever the free turns; none waits without room")
    func oneCallPerUploadAndSubject() {
        let turns = Self.turns(calls: 3, waiting: 0)
        #expect(turns.take(Claim(upload: "u1", subject: "sam")) == .granted(waitedNanoseconds: nil))
        #expect(turns.take(Claim(upload: "u2", subject: "sam")) == .refused(.roomFull, waitedNanoseconds: nil))
        #expect(turns.take(Claim(upload: "u1", subject: "ann")) == .refused(.roomFull, waitedNanoseconds: nil))
        #expect(turns.take(Claim(upload: "u3", subject: "ann")) == .granted(waitedNanoseconds: nil))
        #expect(turns.inUse == [2, 0])
        turns.release(Claim(upload: "u1", subject: "sam"))
        #expect(turns.take(Claim(upload: "u2", subject: "sam")) == .granted(waitedNanoseconds: nil))
    }

    @Test("one waiter per upload and per subject, and no more than the room holds")
    func waitingRoom() throws {
        let turns = Self.turns(calls: 1, waiting: 2)
        #expect(turns.take(Claim(upload: "u1", subject: "sam")) == .granted(waitedNanoseconds: nil))
        let ann = Taker(turns, Claim(upload: "u2", subject: "ann"))
        try #require(eventually(within: 30) { turns.counts.waiting == 1 })
        #expect(turns.take(Claim(upload: "u3", subject: "ann")) == .refused(.subjectWaiting, waitedNanoseconds: nil))
        #expect(turns.take(Claim(upload: "u2", subject: "bob")) == .refused(.uploadWaiting, waitedNanoseconds: nil))
        let bob = Taker(turns, Claim(upload: "u4", subject: "bob"))
        try #require(eventually(within: 30) { turns.counts.waiting == 2 })
        #expect(turns.take(Claim(upload: "u5", subject: "cat")) == .refused(.roomFull, waitedNanoseconds: nil))

        turns.release(Claim(upload: "u1", subject: "sam"))
        #expect(eventually(within: 30) { ann.wasGranted })
        turns.release(Claim(upload: "u2", subject: "ann"))
        #expect(eventually(within: 30) { bob.wasGranted })
    }

    @Test("a freed turn goes to the oldest waiter that may take it, not to a later one")
    func turnsAreHandedOutInArrivalOrder() throws {
        let turns = Self.turns(calls: 2, waiting: 3)
        let sam = Claim(upload: "u1", subject: "sam")
        #expect(turns.take(sam) == .granted(waitedNanoseconds: nil))
        #expect(turns.take(Claim(upload: "u2", subject: "ann")) == .granted(waitedNanoseconds: nil))
        var takers: [Taker] = []
        for (upload, subject) in [("u3", "sam"), ("u4", "bob"), ("u5", "cat")] {
            takers.append(Taker(turns, Claim(upload: upload, subject: subject)))
            try #require(eventually(within: 30) { turns.counts.waiting == takers.count })
        }

        turns.release(Claim(upload: "u2", subject: "ann"))
        // sam's second upload came first but sam is calling: bob, who came next, gets the turn.
        try #require(eventually(within: 30) { takers[1].wasGranted })
        #expect(turns.inUse == [2, 2])
        turns.release(sam)
        try #require(eventually(within: 30) { takers[0].wasGranted })
        #expect(takers[2].result == nil, "cat came last")
        turns.release(Claim(upload: "u4", subject: "bob"))
        #expect(eventually(within: 30) { takers[2].wasGranted })
    }

    @Test("a wait ends without a turn after maxWaitSeconds, and the waiter leaves the room")
    func waitIsBounded() throws {
        let turns = Self.turns(calls: 1, waiting: 1, maxWaitSeconds: 0.2)
        #expect(turns.take(Claim(upload: "u1", subject: "sam")) == .granted(waitedNanoseconds: nil))
        let admission = turns.take(Claim(upload: "u2", subject: "ann"))
        #expect(admission.refusal == .waitedOut)
        #expect(try #require(admission.waitedNanoseconds) >= 200_000_000)
        #expect(turns.inUse == [1, 0])
        turns.release(Claim(upload: "u1", subject: "sam"))
        #expect(turns.inUse == [0, 0])
    }
}

extension CommitHookTurns {
    /// Calls in flight and commits waiting, comparable in an expectation.
    var inUse: [Int] { [counts.calling, counts.waiting] }
}

extension CommitHookTurns.Admission {
    var refusal: CommitHookTurns.Refusal? {
        if case .refused(let refusal, _) = self { return refusal }
        return nil
    }

    var waitedNanoseconds: Int64? {
        switch self {
        case .granted(let waited), .refused(_, let waited): return waited
        }
    }
}
