import PreviewCore
import PreviewHTTPClient
import Synchronization

/// `--jwks-url`: the provider's keys fetched by a thread of their own, at once and then as
/// `JWKSRefreshSchedule` says (the response's max-age, sooner after a failure or for an
/// unknown kid, at once on SIGHUP). A failed fetch (no answer in time, a status other than 200,
/// a body that is not a usable key set) keeps the keys in use, is logged and counted.
package final class JWKSURLSource: Sendable {
    /// The limit of one fetch, connect included.
    static let timeoutSeconds = 5.0

    let url: String
    private let ring: TokenKeyRing
    private let thread = PeriodicThread(name: "jwks-url", interval: 1)
    private let schedule = Mutex(JWKSRefreshSchedule())

    package init(url: String, ring: TokenKeyRing) {
        self.url = url
        self.ring = ring
    }

    package func start() {
        if url.hasPrefix("http://") {
            // Whoever can change the answer on the way decides who may call.
            Log.warn("jwks_url_not_https", ["url": url])
        }
        thread.start { [self] in
            if schedule.withLock({ $0.isDue(now: WallClock.now()) }) { fetch() }
            return true
        }
    }

    package func stop() { thread.stop() }

    /// SIGHUP: fetch on the next pass.
    package func fetchNow() {
        schedule.withLock { $0.fetchNow(now: WallClock.now()) }
    }

    /// A token named `kid`, which the set does not hold: the key may be new, so fetch on the
    /// next pass (false when one is due already, or the last fetch is younger than
    /// `JWKSRefreshSchedule.unknownKeyIDFloor`).
    package func sawUnknownKeyID(_ kid: String) -> Bool {
        guard schedule.withLock({ $0.unknownKeyID(now: WallClock.now()) }) else { return false }
        Log.info("jwks_unknown_kid", ["kid": kid, "url": url])
        return true
    }

    private func fetch() {
        do {
            var request = HTTPClientRequest(method: "GET", url: url)
            request.headers.add("Accept", "application/json")
            request.timeoutSeconds = Self.timeoutSeconds
            request.maxResponseBodyBytes = JWKSet.maxDocumentBytes
            let response = try HTTPClient().send(request)
            guard response.status == 200 else { throw FetchError(description: "status \(response.status)") }
            let set = try JWKSet.parse(response.body)
            ring.install(set)
            let cacheControl = response.headers["Cache-Control"]
            schedule.withLock { $0.succeeded(now: WallClock.now(), cacheControl: cacheControl) }
            Log.info(
                "jwks_fetched",
                [
                    "url": url, "keys": String(set.keys.count),
                    "lifetime": String(JWKSRefreshSchedule.lifetime(cacheControl: cacheControl)),
                ])
        } catch {
            ring.failures.add()
            schedule.withLock { $0.failed(now: WallClock.now()) }
            Log.warn("jwks_fetch_failed", ["url": url, "reason": "\(error)", "kept": String(ring.keyCount)])
        }
    }

    struct FetchError: Error, CustomStringConvertible {
        var description: String
    }
}
