import PreviewCore

/// Webhook events in Redis (`RedisKeys+Webhooks`): the pieces the changes add to their own
/// scripts. The relay from the per-stream outboxes to the delivery streams is in
/// `PreviewStore+WebhookRelay`, the consumer group side in `PreviewStore+WebhookDelivery`.
extension PreviewStore {
    /// The webhook argument of one script call (`WebhookScripts.outboxFunction`): the nonce that
    /// makes its event IDs (`WebhookEvent.isValidID`) and the outbox bound, "<nonce> <limit>";
    /// "" when webhooks are off, which makes the scripts write no event.
    func webhookArgument() -> String {
        guard webhookEvents else { return "" }
        var generator = SystemRandomNumberGenerator()
        return WebhookEvent.makeNonce(using: &generator) + " " + String(webhookOutboxLimit)
    }

    /// The write-ahead index entries for the outboxes of `streamIds`, to send before the script
    /// that may write their events (none when webhooks are off): due for the relay now (LT only
    /// moves a stream earlier), announced now (GT only later).
    func webhookWriteAhead(_ streamIds: [Int64], now: Int64) -> [[String]] {
        guard webhookEvents, !streamIds.isEmpty else { return [] }
        var due = ["ZADD", keys.webhookOutboxes, "LT"]
        var touched = ["ZADD", keys.webhookTouched, "GT"]
        for id in streamIds {
            due += [String(now), String(id)]
            touched += [String(now), String(id)]
        }
        return [due, touched]
    }

    /// Sends `webhookWriteAhead` on its own, before a pipeline of scripts (nothing when off).
    func announceWebhookOutboxes(_ streamIds: [Int64], now: Int64) throws {
        let commands = webhookWriteAhead(streamIds, now: now)
        guard !commands.isEmpty else { return }
        try Self.check(try pool.withConnection { try $0.pipeline(commands) })
    }
}
