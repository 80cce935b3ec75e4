import Foundation
import Glibc
import Synchronization

/// Request log lines waiting to be written to stderr together. A `write(2)` per request line
/// was a twentieth of a feed request's CPU; gathered, one call carries a hundred or more.
/// A thread writes them every `flushIntervalSeconds` (0.1 s); a request that finds 32 KiB waiting writes
/// them itself; any other log line writes them first. Lines wait per thread slot (`ThreadSlot`),
/// so request threads do not queue for one lock: each thread's lines keep their order, and
/// lines of different threads within one interval may be written out of order (their `ts`
/// tells).
final class RequestLines: Sendable {
    static let shared = RequestLines(descriptor: 2, flushIntervalSeconds: 0.1)
    static let flushBytes = 32 * 1024

    /// Lines waiting, per thread slot.
    private let slots = (0..<ThreadSlot.count).map { _ in PaddedMutex<[UInt8]>([]) }
    /// Held while writing, so batches and single lines reach stderr in the order they were taken.
    private let writing = Mutex<Void>(())
    private let flusherStarted = Atomic<Bool>(false)
    /// Where the lines go: stderr, or a test's pipe.
    private let descriptor: Int32
    /// How often the flusher thread writes what waits; nil: no flusher (for tests).
    private let flushIntervalSeconds: Double?

    init(descriptor: Int32, flushIntervalSeconds: Double?) {
        self.descriptor = descriptor
        self.flushIntervalSeconds = flushIntervalSeconds
    }

    func append(_ line: [UInt8]) {
        if !flusherStarted.load(ordering: .relaxed) { startFlusher() }
        let full = slots[ThreadSlot.current].value.withLock { waiting in
            waiting.append(contentsOf: line)
            return waiting.count >= Self.flushBytes
        }
        if full { flush() }
    }

    /// Writes the lines waiting, then `line`, in one call.
    func flush(then line: [UInt8] = []) {
        writing.withLock { _ in
            var batch: [UInt8] = []
            for slot in slots {
                slot.value.withLock { waiting in
                    if batch.isEmpty { swap(&batch, &waiting) } else { batch.append(contentsOf: waiting) }
                    waiting = []
                }
            }
            batch.append(contentsOf: line)
            Self.writeAll(batch, to: descriptor)
        }
    }

    private func startFlusher() {
        guard let interval = flushIntervalSeconds,
            flusherStarted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return }
        // Never stopped: the lines of the process's last moments are flushed by whoever logs them.
        PeriodicThread(name: "request-log", interval: interval, waitsFirst: true).start { [self] in
            flush()
            return true
        }
    }

    /// Logging is best effort: a failed write to stderr has nowhere to be reported, so the
    /// rest of a batch is dropped with it; a short write or EINTR goes on with the remainder.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
