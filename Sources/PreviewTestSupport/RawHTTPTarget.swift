// Where a raw HTTP request for a URL goes, and its head.
import Foundation

/// The host, port and path-with-query of an `http://host:port/...` URL (as the service issues
/// them), and request heads for it: for `RawHTTPConnection` and other raw-socket senders.
public struct RawHTTPTarget: Sendable {
    public var host: String
    public var port: UInt16
    /// The request target exactly as the URL spells it (nothing is normalised).
    public var pathAndQuery: String

    public init(_ url: String) throws {
        guard let components = URLComponents(string: url), let host = components.host,
            let port = components.port.flatMap(UInt16.init(exactly:)),
            let start = url.range(of: "\(host):\(port)")?.upperBound
        else { throw RawHTTPConnection.Failure(description: "not an http://host:port URL: \(url)") }
        self.host = host
        self.port = port
        pathAndQuery = String(url[start...])
    }

    /// The request head for `method` with `headers` (Host first, then as given).
    public func head(_ method: String, _ headers: [(String, String)]) -> [UInt8] {
        var text = "\(method) \(pathAndQuery) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}
