public import PreviewCore

/// The event log (`RedisKeys.feedEvents`): each change viewers hear of, appended by the process
/// that made it right after the change, then announced on the change channel
/// (`FeedChange.eventsMessage`) so every process sends it to the event streams it holds.
extension PreviewStore {
    /// What `events(after:limit:)` found.
    public struct EventPage: Sendable {
        /// Entries after the asked ID, oldest first; nil for an entry this version cannot read.
        public var entries: [(id: FeedEventID, event: FeedEvent?)]
        /// The log may have dropped entries after the asked ID (trimmed, or the ID is not of this
        /// log): the client must reload instead of resuming.
        public var missed: Bool
    }

    /// Appends `events` and announces them, in one round trip. Never throws: the changes they
    /// describe are made already, so a failure is counted (`eventLogFailures`) and a viewer who
    /// missed it sees the change at its next feed reload.
    func recordEvents(_ events: [FeedEvent]) {
        let commands = eventCommands(events)
        guard !commands.isEmpty else { return }
        do {
            let replies = try pool.withConnection { try $0.pipeline(commands) }
            try Self.check(replies)
        } catch {
            eventFailures.add(1, ordering: .relaxed)
        }
    }

    /// `XADD`s of `events` and the announcement, for a pipeline; none for no events.
    func eventCommands(_ events: [FeedEvent]) -> [[String]] {
        guard !events.isEmpty else { return [] }
        return events.map { ["XADD", keys.feedEvents, "MAXLEN", "~", String(eventLogLength), "*"] + $0.fields } + [
            ["PUBLISH", keys.feedChanges, FeedChange.eventsMessage(origin: origin)]
        ]
    }

    /// Event log writes that failed since start.
    public var eventLogFailures: Int { eventFailures.load(ordering: .relaxed) }

    /// Up to `limit` entries after `id`, and whether the log may have lost some after it: once it
    /// was trimmed (`entries-added` past its `length`), an ID before its first entry may have had
    /// entries after it trimmed too; entries up to `max-deleted-entry-id` may have been deleted;
    /// and an ID past `last-generated-id` belongs to another log (Redis was replaced or flushed).
    public func events(after id: FeedEventID, limit: Int) throws -> EventPage {
        try pool.withConnection { connection in
            let info: [String: String]
            do {
                info = Self.fields(try connection.command(["XINFO", "STREAM", keys.feedEvents]))
            } catch let error as RedisError where error.message.contains("no such key") {
                // No log yet: nothing was ever recorded, so only a client with no ID missed nothing.
                return EventPage(entries: [], missed: id != .zero)
            }
            let deleted = info["max-deleted-entry-id"].flatMap(FeedEventID.init) ?? .zero
            let last = info["last-generated-id"].flatMap(FeedEventID.init) ?? .zero
            let first = info["recorded-first-entry-id"].flatMap(FeedEventID.init) ?? .zero
            let trimmed = (Int(info["entries-added"] ?? "") ?? 0) > (Int(info["length"] ?? "") ?? 0)
            // Asked only for an ID the log can answer: Redis refuses an exclusive start past its range.
            guard id >= deleted, id <= last, !(trimmed && id < first) else {
                return EventPage(entries: [], missed: true)
            }
            guard id < last else { return EventPage(entries: [], missed: false) }
            let range = try connection.command([
                "XRANGE", keys.feedEvents, "(\(id)", "+", "COUNT", String(max(1, limit)),
            ])
            return EventPage(entries: Self.entries(range), missed: false)
        }
    }

    /// The newest entry's ID (`.zero` for an empty or missing log): where a process starts
    /// following the log.
    public func lastEventID() throws -> FeedEventID {
        let reply = try pool.withConnection { try $0.command(["XREVRANGE", keys.feedEvents, "+", "-", "COUNT", "1"]) }
        return Self.entries(reply).first?.id ?? .zero
    }

    /// The text and integer fields of an `XINFO STREAM` reply, by name.
    static func fields(_ reply: RedisValue) -> [String: String] {
        let items = reply.array ?? []
        var fields: [String: String] = [:]
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            guard let name = items[index].string else { continue }
            if let text = items[index + 1].string ?? items[index + 1].int.map(String.init) { fields[name] = text }
        }
        return fields
    }

    /// An `XRANGE` reply: `[[id, [field, value, ...]], ...]`.
    static func entries(_ reply: RedisValue) -> [(id: FeedEventID, event: FeedEvent?)] {
        (reply.array ?? []).compactMap { entry in
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string.flatMap(FeedEventID.init) else {
                return nil
            }
            return (id, FeedEvent(fields: hash(parts[1])))
        }
    }
}
