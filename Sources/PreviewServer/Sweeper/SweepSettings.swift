/// How the sweeper works: lifetimes it applies and the sizes of its steps.
package struct SweepSettings: Sendable, Equatable {
    /// How long objects of a preview it expires stay fetchable (`--grace`).
    package var graceSeconds: Int64 = 3600
    /// How long a stream's version counter and likers outlive its last preview.
    package var keepAfterEndSeconds: Int64 = 7 * 86400
    /// Streams claimed per batch (`--batch-streams`); with up to `keysPerStream` keys each, a
    /// batch's deletes are spread over `concurrency` requests.
    package var batchStreams = 1000
    /// Keys condemned and claimed per stream and batch.
    var keysPerStream = 100
    /// Delete requests in flight (`--concurrency`).
    package var concurrency = 8
    /// The lease: how long a sweeper that died blocks the others. A heartbeat thread renews it
    /// every `renewMilliseconds` while a run works, whatever its batches cost.
    var leaseMilliseconds: Int64 = 10_000
    var renewMilliseconds: Int64 = 2_000
    /// Keys deleted between two looks at the lease: a run whose lease is lost stops within one
    /// slice of deletes.
    var deleteSlice = 2_000
    /// How long claimed work stays with a sweeper that may have died before it is due again.
    var claimSeconds: Int64 = 120
    /// How long a queued stream without garbage stays queued after it was last added: the
    /// most time a writer may take between queueing a stream and writing its garbage.
    var settleSeconds: Int64 = 300
    /// First retry delay of a failed delete; doubles per attempt up to `maxBackoffSeconds`.
    var backoffSeconds: Int64 = 30
    var maxBackoffSeconds: Int64 = 3600

    package init() {}
}
