import Foundation
import Synchronization

/// Which commits may call the moderation hook now: at most `calls` at once, and at most one per
/// upload and one per token subject, so a streamer holds one call however many commits it
/// sends. A commit that cannot call at once waits for a turn, up to `maxWaitSeconds`, if the
/// waiting room has space and no other commit of its upload or subject waits there already;
/// otherwise, and when the wait ends without a turn, it gets none.
///
/// A turn that frees goes to the oldest waiter that may take it, so a commit never overtakes
/// an earlier one that could call. A waiting commit holds its worker thread, which also serves
/// the local store's objects: hence the small room and the bounded wait.
final class CommitHookTurns: Sendable {
    struct Limits: Sendable, Equatable {
        var calls: Int
        var waiting: Int
        var maxWaitSeconds: Double
    }

    /// What a turn is held for: one upload, committed by one subject.
    struct Claim: Sendable, Hashable {
        var upload: String
        var subject: String
    }

    /// Why a commit got no turn.
    enum Refusal: String, Sendable, Equatable {
        case uploadWaiting = "another commit of this upload is waiting"
        case subjectWaiting = "another commit of this subject is waiting"
        case roomFull = "the waiting room is full"
        case waitedOut = "no turn within the wait"
    }

    enum Admission: Sendable, Equatable {
        /// The commit may call; `waitedNanoseconds` is nil when it did not wait.
        case granted(waitedNanoseconds: Int64?)
        case refused(Refusal, waitedNanoseconds: Int64?)
    }

    let limits: Limits
    private let state = Mutex(State())
    /// Its lock is held around every change of `state`, and it is broadcast when turns are
    /// handed out, so a waiter cannot miss the change that grants it a turn.
    private let changed = NSCondition()

    init(limits: Limits) {
        self.limits = limits
    }

    /// Calls in flight and commits waiting now, for the gauges.
    var counts: (calling: Int, waiting: Int) {
        state.withLock { ($0.calling, $0.queue.count) }
    }

    /// A turn for `claim`, at once or after waiting; a granted turn must be given back with
    /// `release(_:)`.
    func take(_ claim: Claim) -> Admission {
        changed.lock()
        defer { changed.unlock() }
        let entry = state.withLock { state -> Entry in
            if state.calling < limits.calls, state.isFree(claim) {
                state.start(claim)
                return .started
            }
            if state.queue.contains(where: { $0.claim.upload == claim.upload }) { return .refused(.uploadWaiting) }
            if state.queue.contains(where: { $0.claim.subject == claim.subject }) { return .refused(.subjectWaiting) }
            guard state.queue.count < limits.waiting else { return .refused(.roomFull) }
            return .waiting(ticket: state.enqueue(claim))
        }
        switch entry {
        case .started: return .granted(waitedNanoseconds: nil)
        case .refused(let refusal): return .refused(refusal, waitedNanoseconds: nil)
        case .waiting(let ticket): return wait(for: ticket)
        }
    }

    /// Gives a granted turn back and hands the freed one on. Call once per granted `take`.
    func release(_ claim: Claim) {
        changed.lock()
        defer { changed.unlock() }
        state.withLock { state in
            state.end(claim)
            state.grant(upTo: limits.calls)
        }
        changed.broadcast()
    }

    /// Waits, with `changed` locked, until `ticket` is granted or the wait is over.
    private func wait(for ticket: UInt64) -> Admission {
        let started = ContinuousClock.now
        let deadline = Date(timeIntervalSinceNow: limits.maxWaitSeconds)
        var timedOut = false
        while true {
            let granted = state.withLock { state in
                if state.granted.remove(ticket) != nil { return true }
                if timedOut { state.queue.removeAll { $0.ticket == ticket } }
                return false
            }
            let waited = started.duration(to: .now).metricNanoseconds
            if granted { return .granted(waitedNanoseconds: waited) }
            if timedOut { return .refused(.waitedOut, waitedNanoseconds: waited) }
            timedOut = !changed.wait(until: deadline)
        }
    }

    private enum Entry {
        case started
        case refused(Refusal)
        case waiting(ticket: UInt64)
    }

    private struct Waiter {
        var ticket: UInt64
        var claim: Claim
    }

    private struct State {
        var calling = 0
        var uploads: Set<String> = []
        var subjects: Set<String> = []
        /// Waiters in arrival order.
        var queue: [Waiter] = []
        /// Waiters given a turn that have not woken up to take it yet.
        var granted: Set<UInt64> = []
        var nextTicket: UInt64 = 0

        func isFree(_ claim: Claim) -> Bool {
            !uploads.contains(claim.upload) && !subjects.contains(claim.subject)
        }

        mutating func start(_ claim: Claim) {
            calling += 1
            uploads.insert(claim.upload)
            subjects.insert(claim.subject)
        }

        mutating func end(_ claim: Claim) {
            calling -= 1
            uploads.remove(claim.upload)
            subjects.remove(claim.subject)
        }

        mutating func enqueue(_ claim: Claim) -> UInt64 {
            nextTicket += 1
            queue.append(Waiter(ticket: nextTicket, claim: claim))
            return nextTicket
        }

        /// Hands free turns to waiters, oldest first, skipping those whose upload or subject
        /// is calling.
        mutating func grant(upTo calls: Int) {
            var index = 0
            while index < queue.count, calling < calls {
                if isFree(queue[index].claim) {
                    start(queue[index].claim)
                    granted.insert(queue.remove(at: index).ticket)
                } else {
                    index += 1
                }
            }
        }
    }
}
