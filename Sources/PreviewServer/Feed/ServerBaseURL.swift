import Synchronization

/// The server's own base URL (`--public-url`, else the address it listens on), known once it
/// listens: what feed items' tracking links (`shareUrl`) are made on. Empty until then, and in
/// processes that serve no API (a link made then is relative: `/s/{streamId}`).
package final class ServerBaseURL: Sendable {
    private let value = Mutex("")

    package init(_ url: String = "") { value.withLock { $0 = url } }

    package func set(_ url: String) { value.withLock { $0 = url } }

    /// The stream's tracking link.
    func shareURL(streamId: Int64) -> String { value.withLock { $0 } + "/s/\(streamId)" }
}
