import Glibc
import Synchronization

/// A value every request reads and few change, kept in one copy per thread slot: readers on
/// different threads take different locks, so they never wait for each other (a contended
/// `Mutex` sleeps in the kernel, which under load cost more than all the feed's own work).
/// A write replaces every copy, one after another, under a lock of its own.
final class ReadMostly<Value: Sendable>: Sendable {
    private let copies: [PaddedMutex<Value>]
    private let writing = Mutex<Void>(())

    init(_ value: Value) {
        copies = (0..<ThreadSlot.count).map { _ in PaddedMutex(value) }
    }

    package func read() -> Value {
        copies[ThreadSlot.current].value.withLock { $0 }
    }

    func write(_ value: Value) {
        writing.withLock { _ in
            for copy in copies { copy.value.withLock { $0 = value } }
        }
    }
}

/// A `Mutex` in an object of its own, padded so that neighbouring ones (one per thread slot)
/// stay off one cache line.
final class PaddedMutex<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    private let padding: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)

    init(_ value: Value) { self.value = Mutex(value) }
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
