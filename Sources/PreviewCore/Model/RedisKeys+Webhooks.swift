/// The webhook keys (see `RedisKeys` for the layout rules they follow).
///
/// Each stream's events go to its own outbox, written by the same script as the change (so an
/// event exists exactly when its change does) in the stream's slot. A global index in a slot of
/// its own, `{hooks}`, names the streams whose outbox may hold events: written *before* the
/// script (write-ahead, like the sweep queue), so a crash between the two leaves an index entry
/// with nothing behind it, never an event nobody looks for. A relay moves outbox entries into
/// one delivery stream per receiver URL, where a consumer group delivers them, a few per stream
/// at a time (`webhookQueued`): the rest wait in the stream's own outbox, which its scripts keep
/// to a bound, so one stream's backlog neither fills Redis nor queues ahead of other streams.
extension RedisKeys {
    // Per stream: hash tag {s:<id>}.
    /// Stream: the stream's events not yet relayed (`WebhookEvent` fields without `streamId`).
    /// Deleted by the relay when it has emptied it.
    public func webhookOutbox(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:webhooks" }
    /// Hash, beside the outbox and deleted with it: receiver endpoint → the last outbox entry ID
    /// relayed to its delivery stream, and `dropped` → the outbox's count of dropped events the
    /// relays have already reported.
    public func webhookRelayed(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:webhooks:relayed" }
    /// Hash with a TTL: object key of a replaced preview → `<version> <uploadId> <other object
    /// key>`, written by the commit that replaced it when webhooks are on, so the sweeper can
    /// announce the version's removal once both its objects are deleted.
    public func replacedObjects(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:replaced" }

    // Global: hash tag {hooks}.
    /// Sorted set: stream IDs whose outbox may hold events, scored by when the relay should look.
    public var webhookOutboxes: String { "\(prefix):{hooks}:outboxes" }
    /// Sorted set: stream IDs of `webhookOutboxes`, scored by when an event was last announced.
    public var webhookTouched: String { "\(prefix):{hooks}:touched" }
    /// Stream with the consumer group `webhookGroup`: the deliveries to one receiver URL
    /// (`WebhookEndpoint.id`), each an event's fields plus `url` and `deadline`.
    public func webhookDeliveries(endpoint: String) -> String { "\(prefix):{hooks}:deliveries:\(endpoint)" }
    /// Hash: stream ID → that stream's deliveries in `webhookDeliveries(endpoint:)` not yet
    /// acknowledged or dead-lettered, changed in the same scripts as the delivery stream.
    public func webhookQueued(endpoint: String) -> String { "\(prefix):{hooks}:queued:\(endpoint)" }
    /// Stream: deliveries that failed until their deadline, with `attempts`, `lastError` and
    /// `deadAt`; trimmed to about `PreviewStore.deadLetterLimit` entries.
    public var webhookDeadLetters: String { "\(prefix):{hooks}:dead" }
    /// The consumer group on every delivery stream.
    public static let webhookGroup = "senders"
}
