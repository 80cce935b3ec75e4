/// The published preview of one stream, as kept in its Redis hash (`RedisKeys.preview`).
public struct PreviewRecord: Sendable, Equatable {
    public var streamId: Int64
    public var version: Int64
    public var uploadId: String
    public var movieKey: String
    public var thumbnailKey: String
    public var movieType: MediaType
    public var thumbnailType: MediaType
    public var movieBytes: Int64
    public var thumbnailBytes: Int64
    /// Plain GET URLs, kept when a public/CDN base URL is configured (the original design).
    public var movieURL: String?
    public var thumbnailURL: String?
    /// Commit time.
    public var updatedAt: Int64
    /// `updatedAt` + the preview TTL: when it leaves the feed.
    public var expiresAt: Int64
    /// What commit read from the clip's MP4 boxes (`MP4Inspector`); 0 / false when unknown,
    /// as for records written before these fields existed.
    public var durationMs: Int64
    public var width: Int32
    public var height: Int32
    public var fastStart: Bool
    /// The clip's video codec as RFC 6381 has it (`avc1.42E01E`); empty when unknown (a record
    /// written before the field existed, which then has no hash field for it).
    public var codecs: String
    /// What the streamer said of the preview (title, category, language, mature, alt text),
    /// after the commit hook's labels had their say (`PreviewDescription.labelled`).
    public var details: PreviewDescription
    /// What the commit hook attached (`PreviewLabels`); empty for most previews, which then
    /// keep no hash field for it.
    public var labels: [String: String]

    public init(
        streamId: Int64, version: Int64, uploadId: String, movieKey: String, thumbnailKey: String,
        movieType: MediaType, thumbnailType: MediaType, movieBytes: Int64, thumbnailBytes: Int64,
        movieURL: String? = nil, thumbnailURL: String? = nil, updatedAt: Int64, expiresAt: Int64,
        durationMs: Int64 = 0, width: Int32 = 0, height: Int32 = 0, fastStart: Bool = false, codecs: String = "",
        details: PreviewDescription = PreviewDescription(), labels: [String: String] = [:]
    ) {
        self.streamId = streamId
        self.version = version
        self.uploadId = uploadId
        self.movieKey = movieKey
        self.thumbnailKey = thumbnailKey
        self.movieType = movieType
        self.thumbnailType = thumbnailType
        self.movieBytes = movieBytes
        self.thumbnailBytes = thumbnailBytes
        self.movieURL = movieURL
        self.thumbnailURL = thumbnailURL
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.fastStart = fastStart
        self.codecs = codecs
        self.details = details
        self.labels = labels
    }

    /// Hash field names; the publish and delete scripts use the same names.
    public enum Field {
        public static let version = "version"
        public static let uploadId = "uploadId"
        public static let movieKey = "movieKey"
        public static let thumbnailKey = "thumbnailKey"
        public static let movieType = "movieContentType"
        public static let thumbnailType = "thumbnailContentType"
        public static let movieBytes = "movieBytes"
        public static let thumbnailBytes = "thumbnailBytes"
        public static let movieURL = "movieUrl"
        public static let thumbnailURL = "thumbnailUrl"
        /// Kept under the hash field's first name, `uploadedAt`: records written before the
        /// property was renamed must still read, and renaming the field would need a migration
        /// of every live record.
        public static let updatedAt = "uploadedAt"
        public static let expiresAt = "expiresAt"
        public static let durationMs = "durationMs"
        public static let width = "width"
        public static let height = "height"
        /// "1" or "0".
        public static let fastStart = "fastStart"
        /// Absent when unknown.
        public static let codecs = "codecs"
        /// `PreviewLabels.encode`; absent when there are none.
        public static let labels = "labels"
    }

    /// The hash fields to write, without `version` (the publish script assigns it).
    public var fieldsWithoutVersion: [(String, String)] {
        var fields: [(String, String)] = [
            (Field.uploadId, uploadId), (Field.movieKey, movieKey), (Field.thumbnailKey, thumbnailKey),
            (Field.movieType, movieType.rawValue), (Field.thumbnailType, thumbnailType.rawValue),
            (Field.movieBytes, String(movieBytes)), (Field.thumbnailBytes, String(thumbnailBytes)),
            (Field.updatedAt, String(updatedAt)), (Field.expiresAt, String(expiresAt)),
            (Field.durationMs, String(durationMs)), (Field.width, String(width)), (Field.height, String(height)),
            (Field.fastStart, fastStart ? "1" : "0"),
        ]
        if let movieURL { fields.append((Field.movieURL, movieURL)) }
        if let thumbnailURL { fields.append((Field.thumbnailURL, thumbnailURL)) }
        if !codecs.isEmpty { fields.append((Field.codecs, codecs)) }
        if !labels.isEmpty { fields.append((Field.labels, PreviewLabels.encode(labels))) }
        return fields + details.fields
    }

    /// Reads a preview hash; nil when the hash is absent or not one we wrote.
    public init?(streamId: Int64, fields: [String: String]) {
        guard let version = fields[Field.version].flatMap({ Int64($0) }),
            let uploadId = fields[Field.uploadId],
            let movieKey = fields[Field.movieKey], let thumbnailKey = fields[Field.thumbnailKey],
            let movieType = fields[Field.movieType].flatMap(MediaType.init(rawValue:)),
            let thumbnailType = fields[Field.thumbnailType].flatMap(MediaType.init(rawValue:)),
            let updatedAt = fields[Field.updatedAt].flatMap({ Int64($0) }),
            let expiresAt = fields[Field.expiresAt].flatMap({ Int64($0) })
        else { return nil }
        self.init(
            streamId: streamId, version: version, uploadId: uploadId, movieKey: movieKey,
            thumbnailKey: thumbnailKey, movieType: movieType, thumbnailType: thumbnailType,
            movieBytes: fields[Field.movieBytes].flatMap { Int64($0) } ?? 0,
            thumbnailBytes: fields[Field.thumbnailBytes].flatMap { Int64($0) } ?? 0,
            movieURL: fields[Field.movieURL], thumbnailURL: fields[Field.thumbnailURL],
            updatedAt: updatedAt, expiresAt: expiresAt,
            durationMs: fields[Field.durationMs].flatMap { Int64($0) } ?? 0,
            width: fields[Field.width].flatMap { Int32($0) } ?? 0,
            height: fields[Field.height].flatMap { Int32($0) } ?? 0,
            fastStart: fields[Field.fastStart] == "1", codecs: fields[Field.codecs] ?? "",
            details: PreviewDescription(fields: fields),
            labels: fields[Field.labels].flatMap(PreviewLabels.decode) ?? [:])
    }
}
