import Foundation
package import PreviewRedis

/// SIGTERM and SIGINT, blocked in every thread and taken synchronously by the main thread,
/// so shutdown is ordinary straight-line code (stop the server, the sweeper, then Redis).
/// With a hangup handler, SIGHUP is taken the same way and calls it (reload the key set).
package struct ShutdownSignals {
    private var set = sigset_t()
    private var onHangup: (@Sendable () -> Void)?

    /// Blocks the signals; call before any thread starts so all threads inherit the mask.
    /// `hangup`: take SIGHUP too; without it SIGHUP keeps its default action.
    package static func block(hangup: Bool = false) -> ShutdownSignals {
        var signals = ShutdownSignals()
        // Ignored results: sigemptyset and sigaddset fail only for a NULL set or an invalid signal
        // number, and pthread_sigmask only for an invalid `how`; none of these can happen here.
        _ = sigemptyset(&signals.set)
        _ = sigaddset(&signals.set, SIGTERM)
        _ = sigaddset(&signals.set, SIGINT)
        if hangup { _ = sigaddset(&signals.set, SIGHUP) }
        _ = pthread_sigmask(SIG_BLOCK, &signals.set, nil)
        return signals
    }

    /// Called on the main thread for each SIGHUP (when `block(hangup: true)`).
    package mutating func onHangup(_ handler: @escaping @Sendable () -> Void) {
        onHangup = handler
    }

    package enum Reason: Equatable, CustomStringConvertible {
        case signal(String)
        case redisExited

        package var description: String {
            switch self {
            case .signal(let name): return name
            case .redisExited: return "embedded redis-server exited"
            }
        }
    }

    /// Waits for a signal, or for the embedded Redis to die (then serving is pointless).
    package func wait(whileAlive redis: RedisServerProcess?) -> Reason {
        while true {
            if let reason = wait(seconds: 1, whileAlive: redis) { return reason }
        }
    }

    /// Like `wait(whileAlive:)`, for at most `seconds`; nil when they passed quietly.
    package func wait(seconds: Int64, whileAlive redis: RedisServerProcess?) -> Reason? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var mask = set
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            let slice = min(left, .seconds(1))
            var timeout = timespec(
                tv_sec: Int(slice.components.seconds), tv_nsec: Int(slice.components.attoseconds / 1_000_000_000))
            let signal = sigtimedwait(&mask, nil, &timeout)
            if signal == SIGTERM { return .signal("SIGTERM") }
            if signal == SIGINT { return .signal("SIGINT") }
            if signal == SIGHUP {
                Log.info("sighup", [:])
                onHangup?()
            }
            if let redis, redis.hasExited {
                Log.error("redis_exited", ["log": redis.logPath])
                return .redisExited
            }
        }
        return nil
    }
}
