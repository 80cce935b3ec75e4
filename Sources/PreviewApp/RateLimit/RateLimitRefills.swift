import Foundation
import PreviewCore
import PreviewRedis
import Synchronization

/// Feed leases refilled ahead of need (`RateLimitLease.refill`, or while the caller is answered
/// on credit: `RateLimitLease.onCredit`) on one thread of their own, so the I/O thread
/// answering a steady reader never waits on Redis. A refill can wait: the thread gathers the
/// refills asked for within `gatherSeconds` and sends them in one pipelined round trip (a
/// Redis call costs both processes far more in system calls and thread switches than the
/// script itself). The thread starts with the first refill asked for and ends after
/// `idleSeconds` with none; the queue is bounded. A refill that fails, is refused or is dropped from a full queue is marked in the
/// caller's lease (`RateLimitLease.unanswered`): once the lease runs out, a request that can
/// take no more credit asks Redis, which answers it (429, or the feed's fail-open).
final class RateLimitRefills: Sendable {
    struct Refill: Sendable {
        let limitClass: RateLimitClass
        let caller: String
        let policy: RateLimitPolicy
        let want: Int64
        /// The clock of the request that asked for it: the refilled lease's lifetime counts
        /// from there, on the same clock as the requests that use it.
        let askedAtMilliseconds: Int64
    }

    private struct Queue {
        var refills: [Refill] = []
        var running = false
    }

    private let limiter: RateLimiter
    private let leases: RateLimitLeases
    private let queue = Mutex(Queue())
    private let wakeup = DispatchSemaphore(value: 0)
    let maxQueued: Int
    let idleSeconds: Double
    let gatherSeconds: Double
    /// The most refills sent in one round trip.
    static let maxBatch = 256

    init(
        limiter: RateLimiter, leases: RateLimitLeases, maxQueued: Int = 4096, idleSeconds: Double = 10,
        gatherSeconds: Double = 0.02
    ) {
        self.limiter = limiter
        self.leases = leases
        self.maxQueued = maxQueued
        self.idleSeconds = idleSeconds
        self.gatherSeconds = gatherSeconds
    }

    /// Queues a refill; false when the queue is full and it was dropped.
    @discardableResult
    func ask(_ refill: Refill) -> Bool {
        let (queued, start) = queue.withLock { queue -> (Bool, Bool) in
            guard queue.refills.count < maxQueued else { return (false, false) }
            queue.refills.append(refill)
            defer { queue.running = true }
            return (true, !queue.running)
        }
        guard queued else { return false }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "rate-limit-refills"
            thread.start()
        }
        wakeup.signal()
        return true
    }

    private func run() {
        while true {
            let timedOut = wakeup.wait(timeout: .now() + idleSeconds) == .timedOut
            if !timedOut {
                Thread.sleep(forTimeInterval: gatherSeconds)
                // The signals of the refills taken below are spent here, before they are taken:
                // a refill asked for later keeps its own.
                while wakeup.wait(timeout: .now()) == .success {}
            }
            let batch = queue.withLock { queue -> [Refill]? in
                if queue.refills.isEmpty {
                    if timedOut { queue.running = false }
                    return timedOut ? nil : []
                }
                defer { queue.refills.removeAll(keepingCapacity: true) }
                return queue.refills
            }
            guard let batch else { return }
            for start in stride(from: 0, to: batch.count, by: Self.maxBatch) {
                perform(batch[start..<min(batch.count, start + Self.maxBatch)])
            }
        }
    }

    private func perform(_ refills: ArraySlice<Refill>) {
        let requests = refills.map {
            RateLimiter.Request(caller: $0.caller, limitClass: $0.limitClass, policy: $0.policy, want: $0.want)
        }
        // No answers at all: the round trip failed, and with it every ask.
        let answers = (try? limiter.check(requests)) ?? []
        for (index, refill) in refills.enumerated() {
            switch index < answers.count ? answers[index] : nil {
            case .success(let (taken, decision))? where taken > 0:
                let now = refill.askedAtMilliseconds
                leases.keep(
                    RateLimitLease.ahead(taken: taken, decision: decision, nowMilliseconds: now), refill.limitClass,
                    caller: refill.caller, answersAsk: true, nowMilliseconds: now)
            case .success?:
                leases.unanswered(refill.limitClass, caller: refill.caller, refused: true)
            case .failure?, nil:
                leases.unanswered(refill.limitClass, caller: refill.caller, refused: false)
            }
        }
    }
}
