import Dispatch
import PreviewServer
import Synchronization

/// The stop request of `capture`: set once by the signal thread (SIGTERM, SIGINT); a capture in
/// progress polls it and kills ffmpeg, and a wait between cycles ends at once.
final class CaptureStop: Sendable {
    private let reason = Mutex<String?>(nil)
    private let wake = DispatchSemaphore(value: 0)

    /// The signal's name once a stop was requested, else nil.
    var requested: String? { reason.withLock { $0 } }
    var isRequested: Bool { requested != nil }

    /// Records the stop (the first reason wins) and wakes a wait.
    func request(_ why: String) {
        let first = reason.withLock { current -> Bool in
            guard current == nil else { return false }
            current = why
            return true
        }
        if first { wake.signal() }
    }

    /// Waits `seconds` unless a stop comes first; true when stopped.
    func sleep(seconds: Double) -> Bool {
        if isRequested { return true }
        if seconds > 0, wake.wait(timeout: .now() + seconds) == .success {
            wake.signal()  // a later wait must see it too
        }
        return isRequested
    }
}
