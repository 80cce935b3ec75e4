/// What commit does with a clip whose `moov` box comes after its media data (`mdat`): such a
/// clip stalls progressive playback (iOS waits for the whole file before it starts).
public enum FastStartPolicy: String, Sendable, CaseIterable {
    /// Refuse it (422 `clip_not_fast_start`) so the app re-encodes with `-movflags +faststart`.
    case require
    /// Publish it, with `fastStart: false` in the feed item.
    case warn
}
