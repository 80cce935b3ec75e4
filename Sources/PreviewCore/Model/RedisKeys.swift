/// The Redis key schema, in one place.
///
/// Cluster safety: every key of one stream shares the hash tag `{s:<id>}` and every key of
/// one viewer the tag `{v:<sub>}`, so each Lua script touches a single slot. Two indexes are
/// global and live in their own slots:
/// - `{feed}:live`, a sorted set of live stream IDs scored by preview expiry. It is written
///   *after* the stream's preview hash and trimmed with a re-check (remove, then re-add if
///   the hash still exists), so a racing commit is never dropped from the index; readers
///   treat the preview hash as the truth and skip index entries without one.
/// - `{gc}:objects`, a sorted set of every object key ever handed out, scored by when to
///   look at it next. An object is deleted only after a per-stream script finds it neither
///   referenced by the live preview, nor held by a pending upload, nor inside its grace
///   period, so no actor can delete an object in use, and none is leaked.
/// Viewer likes are kept twice: `{s:<id>}:likers` (the count) and `{v:<sub>}:liked` (the
/// flag in the viewer's feed). They are written one after the other, both idempotently,
/// so a retried like converges.
public struct RedisKeys: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String = "sp") {
        self.prefix = prefix
    }

    // Per stream: hash tag {s:<id>}.
    /// Hash: the live preview of a stream (fields in `PreviewRecord`).
    public func preview(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:preview" }
    /// String counter: last preview version; never deleted, so versions only grow.
    public func version(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:version" }
    /// Set: subjects who like the stream.
    public func likers(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:likers" }
    /// Hash with a TTL: an issued, not yet expired upload (fields in `PendingUpload`).
    public func upload(_ streamId: Int64, _ uploadId: String) -> String {
        "\(prefix):{s:\(streamId)}:upload:\(uploadId)"
    }
    /// Sorted set: replaced object keys, scored by the time they may be deleted.
    public func retired(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:retired" }
    /// Sorted set with a TTL: the stream's pending upload IDs, scored by their commit deadline.
    /// Bounds how many uploads a stream may have issued and not committed: members past their
    /// deadline stop counting and are trimmed when the next upload is recorded; committing
    /// removes its member; the key expires with its last deadline.
    public func pendingUploads(_ streamId: Int64) -> String { "\(prefix):{s:\(streamId)}:pending" }

    // Per viewer: hash tag {v:<sub>}.
    /// Hash with a TTL: stream ID → preview version this viewer has seen.
    public func seen(_ subject: String) -> String { "\(prefix):{v:\(Self.tagSafe(subject))}:seen" }
    /// Set: stream IDs this viewer likes.
    public func liked(_ subject: String) -> String { "\(prefix):{v:\(Self.tagSafe(subject))}:liked" }

    // Global indexes, each in its own slot.
    public var live: String { "\(prefix):{feed}:live" }
    public var garbage: String { "\(prefix):{gc}:objects" }

    /// Percent-encodes the bytes that would end a hash tag early or break the key's shape,
    /// so two subjects can never share a key.
    static func tagSafe(_ subject: String) -> String {
        var out = ""
        for byte in subject.utf8 {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "%"), UInt8(ascii: ":"), 0..<0x21, 0x7f...:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
