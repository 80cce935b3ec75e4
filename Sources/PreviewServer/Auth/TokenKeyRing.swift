package import PreviewCore
import Synchronization

/// The token verifier every request reads, swapped whole when the identity provider's keys
/// change (file reload, URL fetch), so a request sees one key set from start to end. Each
/// change counts the keys' generation up: held tokens verified under an older one are
/// verified again (`AuthenticatedTokens`), so a key that left the set stops working at once.
package final class TokenKeyRing: Sendable {
    private let current: ReadMostly<JWTVerifier>
    fileprivate let crypto: (any PublicKeyCrypto)?
    private struct Installed {
        var set: JWKSet?
        var generation: UInt64 = 0
        var unknownKeyID: (@Sendable (String) -> Bool)?
    }
    private let installed = Mutex(Installed())
    /// Key sets that failed to load or fetch (`streampreview_jwks_fetch_failures_total`).
    let failures = MetricCounter()
    /// Tokens naming a kid the set lacks that made the source fetch again, and those that did
    /// not: a fetch was due already, or the last one is too recent
    /// (`JWKSRefreshSchedule.unknownKeyIDFloor`).
    let unknownKeyIDFetches = MetricCounter()
    let unknownKeyIDThrottled = MetricCounter()

    /// A ring for `verifier`; `crypto` prepares the keys of sets installed later.
    package init(_ verifier: JWTVerifier, crypto: (any PublicKeyCrypto)? = nil) {
        current = ReadMostly(verifier)
        self.crypto = crypto
    }

    var verifier: JWTVerifier { current.read() }

    /// Whether a provider key set was ever installed (readiness waits for the first).
    var hasKeys: Bool { installed.withLock { $0.set != nil } }

    /// True while a provider key set is configured and none was ever installed (/readyz is 503).
    var waitsForKeys: Bool { crypto != nil && !hasKeys }

    /// Keys in the installed set.
    var keyCount: Int { installed.withLock { $0.set?.keys.count ?? 0 } }

    /// Makes `set` the provider's keys; false when it equals the installed set (nothing changes).
    @discardableResult
    func install(_ set: JWKSet) -> Bool {
        guard let crypto else { return false }
        return installed.withLock { state in
            guard state.set != set else { return false }
            state.generation += 1
            let keys = JWTPublicKeys(set, generation: state.generation, crypto: crypto)
            for problem in keys.refused { Log.warn("jwks_key_refused", ["reason": problem]) }
            for problem in set.ignored { Log.info("jwks_key_ignored", ["reason": problem]) }
            current.write(current.read().with(publicKeys: keys))
            state.set = set
            Log.info(
                "jwks_installed",
                [
                    "generation": String(state.generation),
                    "kids": keys.keys.keys.sorted().joined(separator: ","),
                ])
            return true
        }
    }

    /// Called with the kid of a token that named a key the set does not hold; answers whether
    /// that makes the source fetch again.
    package func onUnknownKeyID(_ handler: @escaping @Sendable (String) -> Bool) {
        installed.withLock { $0.unknownKeyID = handler }
    }

    func sawUnknownKeyID(_ kid: String) {
        guard let handler = installed.withLock({ $0.unknownKeyID }) else { return }
        (handler(kid) ? unknownKeyIDFetches : unknownKeyIDThrottled).add()
    }
}

extension TokenKeyRing {
    /// The key set's metrics, when a provider key set is configured.
    func render(into text: inout PrometheusText) {
        guard crypto != nil else { return }
        text.family(
            "streampreview_jwks_fetch_failures_total", .counter,
            help: "Identity-provider key set loads (file reads, URL fetches) that failed; the last good keys were kept."
        )
        text.sample("streampreview_jwks_fetch_failures_total", failures.value)
        text.family(
            "streampreview_jwks_unknown_kid_total", .counter,
            help:
                "Tokens naming a kid the key set lacks: refetch scheduled, or throttled (one due already, or the last fetch under \(JWKSRefreshSchedule.unknownKeyIDFloor) s old)."
        )
        text.sample(
            "streampreview_jwks_unknown_kid_total", labels: [("refetch", "scheduled")], unknownKeyIDFetches.value)
        text.sample(
            "streampreview_jwks_unknown_kid_total", labels: [("refetch", "throttled")], unknownKeyIDThrottled.value)
        text.family("streampreview_jwks_keys", .gauge, help: "Identity-provider keys in use.")
        text.sample("streampreview_jwks_keys", Int64(keyCount))
    }
}
