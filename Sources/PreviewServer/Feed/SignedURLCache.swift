import Synchronization

/// Signed GET URLs of the current grid window, so each is signed once per window and every
/// viewer gets the same bytes. Entries of an older window are dropped when a new one starts.
final class SignedURLCache: Sendable {
    private struct State {
        var signingTime: Int64 = .min
        var urls: [String: String] = [:]
    }

    private let state = Mutex(State())
    /// Bounds memory if keys churn within one window.
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The URL of `key` (with `disposition`, a download link: cached apart from the plain one).
    func url(key: String, disposition: String? = nil, signingTime: Int64, sign: () throws -> String) rethrows
        -> String
    {
        let key = disposition.map { key + "\u{0}" + $0 } ?? key
        if let cached = state.withLock({ $0.signingTime == signingTime ? $0.urls[key] : nil }) { return cached }
        let url = try sign()
        state.withLock { state in
            if state.signingTime != signingTime || state.urls.count >= capacity {
                state.signingTime = signingTime
                state.urls.removeAll(keepingCapacity: true)
            }
            state.urls[key] = url
        }
        return url
    }
}
