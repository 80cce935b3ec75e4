import Foundation
import PreviewRedis

/// SIGTERM and SIGINT, blocked in every thread and taken synchronously by the main thread,
/// so shutdown is ordinary straight-line code (stop the server, the sweeper, then Redis).
struct ShutdownSignals {
    private var set = sigset_t()

    /// Blocks the signals; call before any thread starts so all threads inherit the mask.
    static func block() -> ShutdownSignals {
        var signals = ShutdownSignals()
        sigemptyset(&signals.set)
        sigaddset(&signals.set, SIGTERM)
        sigaddset(&signals.set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals.set, nil)
        return signals
    }

    /// Waits for a signal, or for the embedded Redis to die (then serving is pointless).
    /// Returns the reason.
    func wait(whileAlive redis: RedisServerProcess?) -> String {
        var timeout = timespec(tv_sec: 1, tv_nsec: 0)
        var mask = set
        while true {
            let signal = sigtimedwait(&mask, nil, &timeout)
            if signal == SIGTERM { return "SIGTERM" }
            if signal == SIGINT { return "SIGINT" }
            if let redis, redis.hasExited {
                Log.error("redis_exited", ["log": redis.logPath])
                return "embedded redis-server exited"
            }
        }
    }
}
