import Glibc
import Synchronization

/// A value every request reads and few change, kept in one copy per thread slot: readers on
/// different threads take different locks, so they never wait for each other (a contended
/// `Mutex` sleeps in the kernel, which under load cost more than all the feed's own work).
/// A write replaces every copy, one after another, under a lock of its own.
final class ReadMostly<Value: Sendable>: Sendable {
    private final class Copy: Sendable {
        let value: Mutex<Value>
        /// Keeps neighbouring copies off one cache line.
        private let padding: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)

        init(_ value: Value) { self.value = Mutex(value) }
    }

    private let copies: [Copy]
    private let writing = Mutex<Void>(())

    init(_ value: Value) {
        copies = (0..<ThreadSlot.count).map { _ in Copy(value) }
    }

    func read() -> Value {
        copies[ThreadSlot.current].value.withLock { $0 }
    }

    func write(_ value: Value) {
        writing.withLock { _ in
            for copy in copies { copy.value.withLock { $0 = value } }
        }
    }
}

/// Spreads threads over a few slots by their identity, for state kept per slot.
enum ThreadSlot {
    static let count = 8

    /// This thread's slot: a mix of its pthread handle (the address of its descriptor, so
    /// threads differ in the high bits), in 0..<count.
    static var current: Int {
        let handle = UInt64(pthread_self())
        return Int(truncatingIfNeeded: ((handle >> 12) &* 0x9E37_79B9_7F4A_7C15) >> 61)
    }
}
