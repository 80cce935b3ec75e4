import Foundation
import Synchronization

/// Runs blocking work (unlink, libcurl requests) for many items on a bounded number of threads.
enum BoundedWork {
    /// `work(index)` for every index in `0..<count`, in index order, computed on at most
    /// `concurrency` threads at once (the calling thread is one of them); returns when every
    /// call has returned. Each thread takes the next index until none is left, so a slow item
    /// holds up one thread only.
    static func map<Result: Sendable>(
        count: Int, concurrency: Int, _ work: @escaping @Sendable (Int) -> Result
    ) -> [Result] {
        guard count > 0 else { return [] }
        let state = State<Result>(count: count)
        let drain: @Sendable () -> Void = {
            while let index = state.take() { state.store(work(index), at: index) }
        }
        let helpers = min(max(concurrency, 1), count) - 1
        let finished = DispatchGroup()
        for _ in 0..<helpers {
            finished.enter()
            Thread.detachNewThread {
                drain()
                finished.leave()
            }
        }
        drain()
        finished.wait()
        return state.results()
    }

    /// The next index to hand out and the results so far.
    private final class State<Result: Sendable>: Sendable {
        private let count: Int
        private let next = Mutex(0)
        private let slots: Mutex<[Result?]>

        init(count: Int) {
            self.count = count
            slots = Mutex(Array(repeating: nil, count: count))
        }

        func take() -> Int? {
            next.withLock { next in
                guard next < count else { return nil }
                defer { next += 1 }
                return next
            }
        }

        func store(_ result: Result, at index: Int) { slots.withLock { $0[index] = result } }

        /// Every slot is filled once all takers have finished.
        func results() -> [Result] { slots.withLock { $0.compactMap { $0 } } }
    }
}
