// A loopback webhook receiver for the delivery tests: decides per event and attempt (so the
// outcome does not depend on the order concurrent deliveries arrive in), checks every signature,
// and keeps each event once by its ID, as a real receiver would.
import Foundation
public import PreviewCore
import Synchronization

/// Receives webhook POSTs on 127.0.0.1 (a `WebhookReceiver` that chooses each answer here). Each request is answered by
/// `behaviour(eventId, attempt)` (attempt: 1 for the first request carrying that event ID);
/// accepted events are kept once by ID, later copies counted as duplicates. A request whose
/// `StreamPreview-Signature` does not verify is answered 400 and counted, never accepted.
public final class WebhookSink: Sendable {
    /// What the sink does with one request.
    public enum Behaviour: Sendable {
        /// 204.
        case accept
        /// This status (a failed attempt).
        case fail(Int)
        /// No answer for this long, then the connection closes (a timed-out attempt).
        case stall(seconds: Double)
    }

    /// An event as a receiver reads it: decoded with Foundation's JSON reader from the body.
    public struct Event: Sendable, Equatable, Decodable {
        public struct Payload: Sendable, Equatable, Decodable {
            public var streamId: String
            public var previewVersion: String
            public var uploadId: String
            public var expiresAt: String?
            public var previousVersion: String?
            public var previousUploadId: String?
            public var reason: String?
            public var finalFigures: FinalFigures?
        }

        /// The figures of the version that stopped being live, as a receiver reads them.
        public struct FinalFigures: Sendable, Equatable, Decodable {
            public var previewVersion: String
            public var liveFrom: String
            public var liveUntil: String
            public var impressions: String
            public var plays: String
            public var likes: String
            public var opens: String
            public var shares: String
            public var distinctImpressions: String
            public var distinctOpens: String
            public var openRate: Double

            public init(
                previewVersion: String, liveFrom: String, liveUntil: String, impressions: String, plays: String,
                likes: String, opens: String, shares: String, distinctImpressions: String, distinctOpens: String,
                openRate: Double
            ) {
                self.previewVersion = previewVersion
                self.liveFrom = liveFrom
                self.liveUntil = liveUntil
                self.impressions = impressions
                self.plays = plays
                self.likes = likes
                self.opens = opens
                self.shares = shares
                self.distinctImpressions = distinctImpressions
                self.distinctOpens = distinctOpens
                self.openRate = openRate
            }
        }

        public var id: String
        public var type: String
        public var createdAt: String
        public var data: Payload
    }

    private struct State {
        var attempts: [String: Int] = [:]
        var accepted: [String: Event] = [:]
        var order: [String] = []
        var duplicates = 0
        var badSignatures = 0
        var unreadable = 0
        var requests = 0
    }

    /// The state, in a class the server's handler can capture (a `Mutex` cannot be).
    private final class Ledger: Sendable {
        let state = Mutex(State())
    }

    private let receiver: WebhookReceiver
    private let ledger: Ledger

    /// `secret` is the one the service signs with; signatures are checked against the clock plus
    /// `clockOffset` seconds (a service on a shifted test clock signs with its own time).
    public init(
        secret: [UInt8], crypto: any CryptoPrimitives, clockOffset: @escaping @Sendable () -> Int64 = { 0 },
        tolerance: Int64 = 300, behaviour: @escaping @Sendable (_ eventId: String, _ attempt: Int) -> Behaviour
    ) throws {
        let ledger = Ledger()
        self.ledger = ledger
        let key = crypto.hmacKey(secret)
        let refused = WebhookReceiver.Answer.respond(
            status: 400, body: Array("Bad Request".utf8), contentType: "text/plain")
        // A receiver of the test support whose every answer is chosen here, per request.
        receiver = try WebhookReceiver(
            otherwise: .chosen { request in
                let id = request.header("StreamPreview-Event-Id") ?? ""
                let attempt = ledger.state.withLock { state -> Int in
                    state.requests += 1
                    state.attempts[id, default: 0] += 1
                    return state.attempts[id, default: 0]
                }
                let now = Int64(Date().timeIntervalSince1970) + clockOffset()
                guard let header = request.header(WebhookSignature.headerName),
                    let signature = WebhookSignature.parse(header),
                    signature.verifies(body: request.body, key: key, now: now, tolerance: tolerance, crypto: crypto)
                else {
                    ledger.state.withLock { $0.badSignatures += 1 }
                    return refused
                }
                guard let event = try? JSONDecoder().decode(Event.self, from: Data(request.body)), event.id == id else {
                    ledger.state.withLock { $0.unreadable += 1 }
                    return refused
                }
                switch behaviour(id, attempt) {
                case .fail(let status):
                    return .respond(status: status, body: Array("Failed".utf8), contentType: "text/plain")
                case .stall(let seconds):
                    return .stall(seconds: seconds)
                case .accept:
                    ledger.state.withLock { state in
                        if state.accepted[id] == nil {
                            state.accepted[id] = event
                            state.order.append(id)
                        } else {
                            state.duplicates += 1
                        }
                    }
                    return .respond(status: 204, body: [], contentType: "text/plain")
                }
            })
    }

    public var url: String { receiver.url + "/hooks" }

    /// Accepted events, each once, in the order they were first accepted.
    public var events: [Event] { ledger.state.withLock { state in state.order.compactMap { state.accepted[$0] } } }
    /// Requests carrying an event already accepted (answered 204 again and dropped).
    public var duplicates: Int { ledger.state.withLock { $0.duplicates } }
    /// Requests whose signature did not verify.
    public var badSignatures: Int { ledger.state.withLock { $0.badSignatures } }
    /// Signed requests whose body was not an event with the header's ID.
    public var unreadable: Int { ledger.state.withLock { $0.unreadable } }
    /// Every request received.
    public var requests: Int { ledger.state.withLock { $0.requests } }
    /// Requests per event ID.
    public var attempts: [String: Int] { ledger.state.withLock { $0.attempts } }

    public func stop() { receiver.stop() }
}
