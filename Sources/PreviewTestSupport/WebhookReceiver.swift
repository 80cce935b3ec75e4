// A loopback receiver of the service's outgoing calls (the commit hook, webhooks), built on
// RawHTTPServer: it records every request and answers each with the next scripted behaviour.
import Foundation
public import PreviewCore
import Synchronization

/// Receives POSTs on 127.0.0.1 and answers them in order from a script (then with a default):
/// a status and body, a stall, a closed connection, or an answer held until the test releases
/// a gate. Every request is recorded as it arrived (method, path, headers, body), before it is
/// answered, so a test can check what was sent while the sender still waits.
public final class WebhookReceiver: Sendable {
    /// What the receiver does with one request.
    public indirect enum Answer: Sendable {
        /// This status with a body (`Content-Type: application/json` unless `contentType` says otherwise).
        case respond(status: Int, body: [UInt8], contentType: String = "application/json")
        /// Reads the request, answers nothing for `seconds`, then closes the connection.
        case stall(seconds: Double)
        /// Closes the connection at once without answering.
        case close
        /// Answers with `answer` once `gate` is opened (or after 60 s, so no thread is stuck).
        case held(Gate, then: Answer)
        /// Answers as `choose` decides for the request (by its body, say), for requests whose
        /// order is not known.
        case chosen(@Sendable (Request) -> Answer)

        /// 200 with a JSON text.
        public static func json(_ text: String, status: Int = 200) -> Answer {
            .respond(status: status, body: Array(text.utf8))
        }
    }

    /// Holds `held` answers back until the test opens it.
    public final class Gate: Sendable {
        private let isOpen = Mutex(false)

        public init() {}

        public func open() { isOpen.withLock { $0 = true } }

        var opened: Bool { isOpen.withLock { $0 } }
    }

    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        /// The request target as sent (path and query).
        public var path: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// The first value of a header, by case-insensitive name.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as a JSON object (Foundation's reader, independent of the service's own).
        public func jsonObject() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                throw ReceiverError("the body is not a JSON object: \(String(decoding: body, as: UTF8.self))")
            }
            return object
        }

        /// Whether the `StreamPreview-Signature` header signs this body with `secret`, at a time
        /// within `tolerance` seconds of now.
        public func signatureVerifies(secret: [UInt8], crypto: some CryptoPrimitives, tolerance: Int64 = 300) -> Bool {
            guard let value = header(WebhookSignature.headerName), let signature = WebhookSignature.parse(value)
            else { return false }
            return signature.verifies(
                body: body, key: crypto.hmacKey(secret), now: Int64(Date().timeIntervalSince1970),
                tolerance: tolerance, crypto: crypto)
        }
    }

    private let server: RawHTTPServer
    private let recorder: Recorder

    /// The script and the requests, shared with the server's connection threads.
    private final class Recorder: Sendable {
        struct State {
            var script: [Answer]
            var otherwise: Answer
            var requests: [Request] = []
        }

        let state: Mutex<State>

        init(_ state: State) { self.state = Mutex(state) }

        /// Records `request` and takes the answer for it.
        func next(_ request: Request) -> Answer {
            state.withLock { state in
                state.requests.append(request)
                return state.script.isEmpty ? state.otherwise : state.script.removeFirst()
            }
        }
    }

    /// Answers the first requests with `script`, in order, and every later one with `otherwise`.
    public init(script: [Answer] = [], otherwise: Answer = .json(#"{"allow":true}"#)) throws {
        let recorder = Recorder(.init(script: script, otherwise: otherwise))
        self.recorder = recorder
        server = try RawHTTPServer { captured in
            let parts = captured.requestLine.split(separator: " ")
            let request = Request(
                method: parts.first.map(String.init) ?? "", path: parts.count > 1 ? String(parts[1]) : "",
                headers: captured.headers, body: captured.body)
            return Self.action(recorder.next(request), for: request)
        }
    }

    deinit { server.stop() }

    public var url: String { server.url }

    /// Every request so far, in arrival order.
    public var requests: [Request] { recorder.state.withLock { $0.requests } }

    /// Replaces what is left of the script, and the default.
    public func answer(_ script: [Answer], otherwise: Answer) {
        recorder.state.withLock { state in
            state.script = script
            state.otherwise = otherwise
        }
    }

    public func stop() { server.stop() }

    private static func action(_ answer: Answer, for request: Request) -> ServerAction {
        switch answer {
        case .respond(let status, let body, let contentType):
            return .respond(
                RawHTTPServer.response(
                    status, status < 300 ? "OK" : "Error", headers: [("Content-Type", contentType)], body: body))
        case .stall(let seconds):
            return .stall(seconds: seconds)
        case .close:
            return .stall(seconds: 0)
        case .held(let gate, let then):
            _ = eventually(within: 60) { gate.opened }
            return action(then, for: request)
        case .chosen(let choose):
            return action(choose(request), for: request)
        }
    }

    public struct ReceiverError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
