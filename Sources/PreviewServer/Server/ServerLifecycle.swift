import Synchronization

/// Whether the process is draining: after SIGTERM, `/readyz` answers 503 and responses ask
/// clients to close their connections, while requests are still answered until the listener
/// stops.
package final class ServerLifecycle: Sendable {
    private let drainingFlag = Atomic<Bool>(false)

    init() {}

    var isDraining: Bool { drainingFlag.load(ordering: .relaxed) }

    package func startDraining() { drainingFlag.store(true, ordering: .relaxed) }
}
