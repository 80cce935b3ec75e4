/// The Redis key schema, in one place.
///
/// Cluster safety: every key of one stream shares the hash tag `{s:<id>}`, every key of
/// one viewer the tag `{v:<sub>}`, and an uploader's retained-bytes keys the tag `{u:<sub>}`,
/// so each Lua script touches a single slot. The global keys
/// live in two slots of their own:
/// - `{feed}:live`, a sorted set of live stream IDs scored by preview expiry. It is written
///   *after* the stream's preview hash and trimmed with a re-check (remove, then re-add if
///   the hash still exists), so a racing commit is never dropped from the index; readers
///   treat the preview hash as the truth and skip index entries without one. Read by every
///   feed reload (at most once a second per process), so it is the hottest global key.
/// - `{gc}:…`, the sweeper's: the queue of streams that have (or may soon have) garbage, the
///   times they were last added, and the lease. Written once per upload issued, commit and end
///   of stream, and by the one sweeper holding the lease.
/// - `{hooks}:…`, webhook delivery's (`RedisKeys+Webhooks`): the write-ahead index of streams
///   whose outbox may hold events, one delivery stream per receiver URL, and the dead letters.
///   Written once per commit and end when webhooks are on, and by the processes that deliver.
///
/// Hot keys and how they scale on a Redis Cluster: the per-stream keys (written by every
/// upload, commit, like and end, read by every feed reload's pipeline) and the per-viewer keys
/// (written by every like and seen mark, read by every feed request) spread over all primaries,
/// since their slots follow the stream ID and the subject; adding primaries adds capacity for
/// them. The two global slots do not spread: `{feed}` (the index, read by each process's
/// reload at most once a second and by the sweeper, written by every commit and end) and
/// `{gc}` (written by every upload issued, commit and end, and by the sweeper; read by each
/// metrics scrape) each live on one primary whatever the cluster's size, so that primary bounds
/// commit and upload throughput, not feed reads. The change channel is classic pub/sub, not a
/// key: each message (a like, commit or end) is relayed to every node over the cluster bus, a
/// cost that grows with the number of nodes rather than spreading.
///
/// Garbage collection: each stream keeps its own garbage (`garbage`, then `deleting`); the
/// global queue only names streams. Whoever creates garbage for a stream adds the stream to
/// the queue *before* the stream's script runs (write-ahead), so a crash between the two
/// steps leaves a queue entry with nothing behind it (harmless), never garbage without one.
/// The sweeper removes a stream from the queue only when both sets are empty and nobody added
/// it for `SweepTiming.settleSeconds`.
///
/// Viewer likes are kept twice: `{s:<id>}:likers` (the count) and `{v:<sub>}:liked` (the
/// flag in the viewer's feed). They are written one after the other, both idempotently,
/// so a retried like converges.
///
/// Owners: nothing is kept forever. Preview hashes are removed by end of stream or expiry;
/// upload records and pending sets have TTLs; garbage sets are emptied by the sweeper; a
/// stream's version counter and likers expire `keepAfterEnd` seconds after its last preview
/// is removed (a new preview makes them persistent again); a viewer's seen hash and liked set
/// expire after the viewer's inactivity and are trimmed to live streams as they grow; a
/// version's figures expire `--stats-retention` after it stops being live.
public struct RedisKeys: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String = "sp") {
        self.prefix = prefix
    }

    // Per stream: hash tag {s:<id>}.
    /// Hash: the live preview of a stream (fields in `PreviewRecord`).
    public func preview(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:preview" }
    /// String counter: last preview version. Persistent while the stream has a live preview, so
    /// versions only grow while any viewer can hold one in a seen hash; expires `keepAfterEnd`
    /// after the stream's last preview is removed.
    public func version(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:version" }
    /// Set: subjects who like the stream; expires with the version counter.
    public func likers(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:likers" }
    /// Hash with a TTL: an issued, not yet expired upload (fields in `PendingUpload`).
    public func upload(_ streamId: Int64, _ uploadId: String) -> String {
        "\(prefix):{s:\(streamId)}:upload:\(uploadId)"
    }
    /// Sorted set: object keys that are or may become garbage, scored by the time they may be
    /// deleted: a replaced or ended preview's at the end of its grace, an issued upload's at
    /// its commit deadline + 1 (committing takes them out). Named `retired` since it first held
    /// only replaced objects; sets written by earlier versions are read the same way.
    public func garbage(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:retired" }
    /// Sorted set: condemned object keys (the sweeper decided; a commit can no longer publish
    /// them), scored by when to try to delete them (again). Removed once gone from the store.
    public func deleting(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:deleting" }
    /// Hash: object key → failed delete attempts, for the backoff; cleared on success.
    public func deleteAttempts(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:delete-attempts" }
    /// Sorted set with a TTL: the stream's pending upload IDs, scored by their commit deadline.
    /// Bounds how many uploads a stream may have issued and not committed: members past their
    /// deadline stop counting and are trimmed when the next upload is recorded; committing
    /// removes its member; the key expires with its last deadline.
    public func pendingUploads(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:pending" }
    /// The bytes a stream's objects hold: issued uploads (their signed sizes), the live preview
    /// and replaced objects in their grace (`RetainedScripts`).
    public func retained(_ streamId: Int64) -> RetainedKeys { RetainedKeys(base: "\(prefix):{s:\(streamId)}") }

    /// String with a TTL: where the stream's tracking link sends browsers (`WatchURL`); set by
    /// its streamer, kept `--stats-retention` past the last set or commit.
    public func watchURL(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:watch" }
    /// Hash: the figures of the stream's preview versions, field `<version>.<name>` (names in
    /// `PreviewFigures.Field`), at most `--stats-versions` versions, and closed ones only for
    /// `--stats-retention`; no TTL while a version is live, the retention once the stream's
    /// last preview is removed. One key per stream, and the two estimates below, so every script
    /// that counts declares every key it writes (a migrating slot then answers TRYAGAIN, never
    /// an error halfway through a script).
    public func figures(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:figures" }
    /// HyperLogLog: the distinct viewers of the live version's `kind` (`FigureKind.distinctSuffix`:
    /// impressions or opens); counted into the hash when the version stops being live.
    public func figures(_ streamId: Int64, distinct kind: String) -> String { figures(streamId) + ":" + kind }
    /// The figure keys a script that opens or closes a version declares: the hash, then the
    /// impressions and opens estimates.
    public func figureKeys(_ streamId: Int64) -> [String] {
        [figures(streamId), figures(streamId, distinct: "impressions"), figures(streamId, distinct: "opens")]
    }

    // Per uploader: hash tag {u:<sub>}.
    /// The bytes of the objects of every upload one token subject issued (`RetainedScripts`).
    public func retained(subject: String) -> RetainedKeys {
        RetainedKeys(base: "\(prefix):{u:\(Self.tagSafe(subject))}")
    }

    // Per viewer: hash tag {v:<sub>}.
    /// Hash with a TTL: stream ID → preview version this viewer has seen.
    public func seen(_ subject: String) -> String { "\(prefix):{v:\(Self.tagSafe(subject))}:seen" }
    /// Set: stream IDs this viewer likes.
    public func liked(_ subject: String) -> String { "\(prefix):{v:\(Self.tagSafe(subject))}:liked" }

    // Per rate-limited caller: hash tag {rl:<caller>}.
    /// String with a TTL: one caller's GCRA state in one class (`RateLimitScript`), the time its
    /// bucket is empty again; it expires then, so an idle caller costs nothing. `caller` is
    /// `sub:<token subject>` or `ip:<address group>`.
    public func rateLimit(caller: String, _ limitClass: RateLimitClass) -> String {
        "\(prefix):{rl:\(Self.tagSafe(caller))}:\(limitClass.rawValue)"
    }

    // Global keys, in two slots.
    public var live: String { "\(prefix):{feed}:live" }
    /// Pub/sub channel: changes to the live list made by one process (likes, publishes, ends),
    /// so the others patch their feed snapshots at once (`FeedChange`).
    public var feedChanges: String { "\(prefix):{feed}:changes" }
    /// Pub/sub channel: a viewer's seen or liked state changed, `<origin> <subject>`, so other
    /// processes forget what they hold of it (`ViewerHistory`).
    public var viewerChanges: String { "\(prefix):{feed}:viewers" }
    /// Stream (a Redis Stream, in a slot of its own): the event log viewers' event streams are
    /// sent from and resumed with (`FeedEvent`), trimmed to about `--events-history` entries.
    public var feedEvents: String { "\(prefix):{events}:log" }
    /// Sorted set: stream IDs whose garbage sets need a look, scored by when.
    public var sweepQueue: String { "\(prefix):{gc}:streams" }
    /// Sorted set: stream IDs of `sweepQueue`, scored by when they were last added.
    public var sweepTouched: String { "\(prefix):{gc}:touched" }
    /// String with a TTL: the fencing token of the sweeper that holds the lease.
    public var sweepLease: String { "\(prefix):{gc}:lease" }
    /// String counter: the last fencing token handed out (one key, only grows).
    public var sweepFence: String { "\(prefix):{gc}:fence" }
    /// Sorted set: stream IDs claimed from `sweepQueue` and not settled yet, scored by the
    /// fencing token that claimed them, so a new lease holder takes over a dead one's claims.
    public var sweepClaims: String { "\(prefix):{gc}:claims" }
    /// Sorted set of object keys written by versions before the per-stream queue; the sweeper
    /// moves its entries into their streams' garbage sets and it disappears when empty.
    public var legacyGarbage: String { "\(prefix):{gc}:objects" }

    /// Percent-encodes the bytes that would end a hash tag early or break the key's shape,
    /// so two subjects can never share a key.
    static func tagSafe(_ subject: String) -> String {
        var out = ""
        for byte in subject.utf8 {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "%"), UInt8(ascii: ":"), 0..<0x21, 0x7f...:
                out += "%" + Hex.encode([byte], uppercase: true)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}

/// The three keys that count the bytes of one stream's or one subject's objects, with a TTL
/// that follows the last object's due time: `bytes` (string counter: the sum), `sizes` (hash:
/// object key → bytes), `due` (sorted set: object key → when it stops counting).
public struct RetainedKeys: Sendable, Equatable {
    public let bytes: String
    public let sizes: String
    public let due: String

    init(base: String) {
        bytes = base + ":retained-bytes"
        sizes = base + ":retained-sizes"
        due = base + ":retained-due"
    }

    /// In the order the scripts take them.
    public var all: [String] { [bytes, sizes, due] }
}
