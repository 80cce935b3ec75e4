import Foundation

/// One server-sent event as read off the wire (the HTML Living Standard's event-stream format).
struct ServerSentEvent: Sendable, Hashable {
    var id: String?
    var name: String
    var data: String
}

/// The event-stream parser: bytes in, events out. Lines end in CR LF, LF or CR; `:` lines are
/// comments (the server's keep-alives); `retry:` sets the reconnection delay; an event is
/// dispatched at a blank line when it has data.
struct ServerSentEventParser: Sendable {
    private var pending: [UInt8] = []
    private var name = ""
    private var data: [String] = []
    private var hasData = false
    private var id: String?
    /// The last `id:` seen, which a reconnection sends as `Last-Event-ID`.
    private(set) var lastEventId: String?
    /// The `retry:` the server asked for, in milliseconds.
    private(set) var retryMilliseconds: Int?
    private var ready: [ServerSentEvent] = []
    /// Whether the previous chunk ended in CR (so an LF opening this one belongs to it).
    private var afterCR = false

    /// Adds bytes of the body; complete events become available from `next()`.
    mutating func feed(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A: line()
            case 0x0D:
                line()
                afterCR = true
            default: pending.append(byte)
            }
        }
    }

    /// The next complete event, oldest first.
    mutating func next() -> ServerSentEvent? {
        ready.isEmpty ? nil : ready.removeFirst()
    }

    /// Forgets a half-read event (the connection it came on is gone).
    mutating func dropPartial() {
        pending = []
        name = ""
        data = []
        hasData = false
        id = nil
        afterCR = false
    }

    private mutating func line() {
        let text = String(decoding: pending, as: UTF8.self)
        pending = []
        if text.isEmpty { return dispatch() }
        if text.hasPrefix(":") { return }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "event": name = String(value)
        case "data":
            data.append(String(value))
            hasData = true
        case "id" where !value.contains("\0"): id = String(value)
        case "retry": if let milliseconds = Int(value), milliseconds >= 0 { retryMilliseconds = milliseconds }
        default: break
        }
    }

    private mutating func dispatch() {
        if let id { lastEventId = id }
        defer {
            name = ""
            data = []
            hasData = false
            id = nil
        }
        guard hasData else { return }
        ready.append(
            ServerSentEvent(id: lastEventId, name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n")))
    }
}
