import Foundation
import PreviewTestSupport
import Synchronization
import Testing

/// Event streams hold slots of their own, never the connections requests need, and a client that
/// goes away frees its slot at once.
@Suite("Event stream slots")
struct EventStreamSlotsTests {
    @Test(
        "Streams opened from many addresses, then dropped, again and again, never keep /healthz or the feed from answering within 1 s"
    )
    func openThenExitFromManyAddresses() throws {
        // Defaults: 1,024 request connections, 64 from one address; streams apart (64 an address).
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        try api.publish(streamId: 42, token: sam)
        let prober = try Prober(port: try RawHTTPTarget(service.baseURL).port, source: "127.0.9.9")
        prober.start()
        // 20 addresses × 64 streams: more than every request connection there is.
        let addresses = (1...20).map { "127.0.8.\($0)" }
        for round in 1...3 {
            var streams: [EventStreamClient] = []
            for address in addresses {
                for _ in 0..<64 {
                    streams.append(try EventStreamClient(service.baseURL + "/api/feed/events", source: address))
                }
            }
            #expect(streams.allSatisfy { $0.status == 200 }, "round \(round)")
            let refused = try EventStreamClient(service.baseURL + "/api/feed/events", source: addresses[0])
            #expect(refused.status == 503, "the 65th stream of one address")
            #expect(refused.header("Retry-After").flatMap(Int.init).map { (5...15).contains($0) } == true)
            // The client exits: every stream's slot is free again within seconds, with no heartbeat.
            streams.removeAll()
            _ = refused
            #expect(
                eventually(within: 20) { (try? api.metricValue("streampreview_event_streams_open")) == "0" },
                "round \(round)")
        }
        let probes = prober.stop()
        #expect(probes.answered > 20, "probes answered: \(probes.answered)")
        #expect(probes.late.isEmpty, "probes not answered 200 within 1 s: \(probes.late)")
    }

    @Test("A client that closes its stream frees the slot at once: the address may open another")
    func closedStreamFreesItsSlot() throws {
        // One stream an address, and heartbeats too rare to find a departed client.
        let service = try ServiceProcess(arguments: ["--max-event-streams-per-ip", "1", "--events-heartbeat", "3600"])
        let api = try APIClient(service)
        let first = try EventStreamClient(service.baseURL + "/api/feed/events")
        #expect(first.status == 200)
        let second = try EventStreamClient(service.baseURL + "/api/feed/events")
        #expect(second.status == 503)
        #expect(try #require(second.header("Content-Type")).hasPrefix("application/json"))
        first.disconnect()
        #expect(eventually(within: 10) { (try? api.metricValue("streampreview_event_streams_open")) == "0" })
        let third = try EventStreamClient(service.baseURL + "/api/feed/events")
        #expect(third.status == 200)
    }

    @Test("Past --max-event-streams a stream is 503 event_streams_full while requests go on")
    func totalBound() throws {
        let service = try ServiceProcess(arguments: ["--max-event-streams", "3", "--max-connections", "4"])
        let api = try APIClient(service)
        let held = try (1...3).map {
            try EventStreamClient(service.baseURL + "/api/feed/events", source: "127.0.7.\($0)")
        }
        #expect(held.allSatisfy { $0.status == 200 })
        let refused = try RawHTTPConnection(try RawHTTPTarget(service.baseURL), source: "127.0.7.9")
        try refused.send("GET /api/feed/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        let answer = try refused.readResponse()
        #expect(answer.status == 503)
        #expect(String(decoding: answer.body, as: UTF8.self).contains(#""code":"event_streams_full""#))
        #expect(answer["Connection"] == "close")
        // Four request connections at once, beside the three streams: all answered.
        let requests = try (0..<4).map { _ in try RawHTTPConnection(try RawHTTPTarget(service.baseURL)) }
        for request in requests { try request.send("GET /api/feed HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") }
        for request in requests { #expect(try request.readResponse().status == 200) }
        #expect(try requests.allSatisfy { try $0.closedByServer() })
        #expect(try api.send("GET", "/healthz").status == 200)
    }
}

/// Asks `/healthz` and the anonymous feed, one after the other, each on a new connection from
/// `source`, until stopped; an answer that is not 200 within 1 s is recorded as late.
private final class Prober: Sendable {
    private let port: UInt16
    private let source: String
    private let state = Mutex<(stopped: Bool, answered: Int, late: [String])>((false, 0, []))
    private let done = DispatchSemaphore(value: 0)

    init(port: UInt16, source: String) throws {
        self.port = port
        self.source = source
    }

    func start() {
        Thread.detachNewThread { [self] in
            while !state.withLock({ $0.stopped }) {
                for path in ["/healthz", "/api/feed"] { probe(path) }
                usleep(50_000)
            }
            done.signal()
        }
    }

    private func probe(_ path: String) {
        let started = ContinuousClock.now
        var outcome: String
        do {
            let connection = try RawHTTPConnection(port: port, source: source, readTimeoutSeconds: 2)
            try connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            outcome = "status \(try connection.readResponse().status)"
        } catch {
            outcome = "\(error)"
        }
        let elapsed = started.duration(to: .now)
        state.withLock { state in
            if outcome == "status 200", elapsed < .seconds(1) {
                state.answered += 1
            } else {
                state.late.append("\(path): \(outcome) after \(elapsed)")
            }
        }
    }

    /// Stops after the probe under way; what was answered and what was late.
    func stop() -> (answered: Int, late: [String]) {
        state.withLock { $0.stopped = true }
        done.wait()
        return state.withLock { ($0.answered, $0.late) }
    }
}
