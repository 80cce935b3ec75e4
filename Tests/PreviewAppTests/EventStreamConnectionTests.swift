import PreviewCore
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The event stream as the HTTP server reads it: suspend when empty, wake once on new bytes,
/// bounded for clients that do not read, replay without gaps or repeats.
@Suite("Event stream connections")
struct EventStreamConnectionTests {
    /// Reads what the stream has, as MHD's reader callback would, with a 64-byte buffer.
    func drain(_ stream: EventStreamConnection, suspended: inout Int) -> (text: String, last: ResponseStreamRead) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let answer = buffer.withUnsafeMutableBytes { stream.read(into: $0, suspend: { suspended += 1 }) }
            guard case .bytes(let count) = answer else { return (String(decoding: bytes, as: UTF8.self), answer) }
            bytes += buffer[..<count]
        }
    }

    func id(_ n: UInt64) -> FeedEventID { FeedEventID(milliseconds: 1000, sequence: n) }

    @Test("An empty stream suspends; bytes sent wake it exactly once; end() ends it")
    func suspendAndWake() {
        let closed = Mutex(0)
        let stream = EventStreamConnection(maxPendingBytes: 1 << 16) { _ in closed.withLock { $0 += 1 } }
        let wakes = Mutex(0)
        stream.start(wake: { wakes.withLock { $0 += 1 } }, abort: {})
        var suspended = 0
        #expect(drain(stream, suspended: &suspended).last == .waiting)
        #expect(suspended == 1 && wakes.withLock { $0 } == 0)
        let event = ServerSentEvents.event(
            id: id(1), name: "likes", data: Array(String(repeating: "x", count: 150).utf8))
        #expect(stream.send(event: event, id: id(1)))
        #expect(stream.send(event: event, id: id(2)))
        #expect(wakes.withLock { $0 } == 1, "one wake for one suspension")
        let (text, last) = drain(stream, suspended: &suspended)
        #expect(text == String(decoding: event + event, as: UTF8.self) && last == .waiting)
        stream.end()
        #expect(wakes.withLock { $0 } == 2)
        #expect(drain(stream, suspended: &suspended).last == .end)
        stream.closed()
        #expect(closed.withLock { $0 } == 1)
        #expect(!stream.send(ServerSentEvents.heartbeat), "a closed stream takes nothing")
    }

    @Test("A client that does not read is failed once its bytes waiting pass the bound, and holds nothing")
    func slowClientIsDropped() {
        let stream = EventStreamConnection(maxPendingBytes: 1000) { _ in }
        let aborts = Mutex(0)
        stream.start(wake: {}, abort: { aborts.withLock { $0 += 1 } })
        var sent = 0
        while stream.send(event: [UInt8](repeating: 65, count: 100), id: id(UInt64(sent + 1))) { sent += 1 }
        #expect(sent == 10)
        #expect(stream.hasFailed && stream.pendingBytes == 0)
        #expect(aborts.withLock { $0 } == 1, "its connection is cut off at once")
        var suspended = 0
        #expect(drain(stream, suspended: &suspended).last == .failed)
    }

    @Test("Live events that arrive during a replay are sent after it, only when newer than what it sent")
    func replayThenLive() {
        let stream = EventStreamConnection(maxPendingBytes: 1 << 16) { _ in }
        stream.start(wake: {}, abort: {})
        stream.beginReplay(after: id(1))
        #expect(stream.send(event: Array("live2\n".utf8), id: id(2)))  // also in the replay
        #expect(stream.send(event: Array("live4\n".utf8), id: id(4)))
        #expect(stream.pendingBytes == 0, "held while the replay runs")
        stream.endReplay([(id(2), Array("replay2\n".utf8)), (id(3), Array("replay3\n".utf8))])
        #expect(stream.send(event: Array("late3\n".utf8), id: id(3)), "older than sent: dropped, stream stays")
        #expect(stream.send(event: Array("live5\n".utf8), id: id(5)))
        var suspended = 0
        #expect(drain(stream, suspended: &suspended).text == "replay2\nreplay3\nlive4\nlive5\n")
    }

    @Test("A reset replaces the replay and is sent whatever its ID")
    func resetIsAlwaysSent() {
        let stream = EventStreamConnection(maxPendingBytes: 1 << 16) { _ in }
        stream.start(wake: {}, abort: {})
        stream.beginReplay(after: id(90))
        stream.endReplay([(id(5), ServerSentEvents.reset(id: id(5)))], reset: true)
        var suspended = 0
        #expect(drain(stream, suspended: &suspended).text == "id: 1000-5\nevent: reset\ndata: {}\n\n")
    }
}

@Suite("Feed event log entries and IDs")
struct FeedEventTests {
    @Test("Entries read back as the events written; IDs parse only as Redis writes them, and order as it does")
    func roundTrip() {
        let events: [FeedEvent] = [
            .preview(streamId: 4, version: 2), .removed(streamId: 4, version: 2),
            .likes(streamId: 9, count: LikeCount(likes: 3, version: 1, sequence: 7)),
        ]
        for event in events {
            var fields: [String: String] = [:]
            for index in stride(from: 0, to: event.fields.count, by: 2) {
                fields[event.fields[index]] = event.fields[index + 1]
            }
            #expect(FeedEvent(fields: fields) == event)
        }
        #expect(FeedEvent(fields: ["type": "other", "stream": "1", "version": "1"]) == nil)
        #expect(FeedEventID("1700000000000-3") == FeedEventID(milliseconds: 1_700_000_000_000, sequence: 3))
        for bad in ["", "1", "1-", "-1", "a-1", "1-1-1", "+1-1", " 1-1", "99999999999999999999-0"] {
            #expect(FeedEventID(bad) == nil, "\(bad)")
        }
        #expect(FeedEventID("9-0")! < FeedEventID("10-0")! && FeedEventID("10-2")! < FeedEventID("10-10")!)
    }
}
