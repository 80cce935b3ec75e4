import Foundation
import Synchronization

/// Runs async work from the synchronous commands (`upload`, `capture`): the calling thread waits
/// while a task runs it. Only for a command's own thread, never on a cooperative one.
package enum Blocking {
    package static func run<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = Outcome<Value>()
        Task {
            do {
                outcome.set(.success(try await work()))
            } catch {
                outcome.set(.failure(error))
            }
        }
        return try outcome.wait().get()
    }

    private final class Outcome<Value: Sendable>: Sendable {
        private let result = Mutex<Result<Value, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func set(_ value: Result<Value, any Error>) {
            result.withLock { $0 = value }
            done.signal()
        }

        func wait() -> Result<Value, any Error> {
            done.wait()
            guard let value = result.withLock({ $0 }) else { preconditionFailure("set before the signal") }
            return value
        }
    }
}
