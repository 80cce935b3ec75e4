/// An issued upload that may still be committed, as kept in its Redis hash (`RedisKeys.upload`).
public struct PendingUpload: Sendable, Equatable {
    public var streamId: Int64
    public var uploadId: String
    public var movieKey: String
    public var thumbnailKey: String
    public var movie: UploadSpec.ObjectSpec
    public var thumbnail: UploadSpec.ObjectSpec
    /// When the PUT URLs stop working.
    public var urlExpiresAt: Int64
    /// The last moment a commit is accepted (a PUT may finish just before the URLs expire).
    /// Past it the sweeper may delete the objects, and it first deletes this record so no
    /// commit can race it.
    public var commitDeadline: Int64
    /// The token subject that asked for the upload: whose retained bytes its objects count in.
    /// Nil in records written before it was kept.
    public var subject: String?
    /// The moderation hook's reason when it refused this upload (empty when it gave none); nil
    /// while it has not. Kept in the upload's hash, so it holds on every replica and ends with
    /// the upload.
    public var hookRefusal: String?
    /// What the upload request said of the preview; published with it.
    public var details: PreviewDescription

    public init(
        streamId: Int64, uploadId: String, movieKey: String, thumbnailKey: String,
        movie: UploadSpec.ObjectSpec, thumbnail: UploadSpec.ObjectSpec, urlExpiresAt: Int64, commitDeadline: Int64,
        subject: String? = nil, hookRefusal: String? = nil, details: PreviewDescription = PreviewDescription()
    ) {
        self.streamId = streamId
        self.uploadId = uploadId
        self.movieKey = movieKey
        self.thumbnailKey = thumbnailKey
        self.movie = movie
        self.thumbnail = thumbnail
        self.urlExpiresAt = urlExpiresAt
        self.commitDeadline = commitDeadline
        self.subject = subject
        self.hookRefusal = hookRefusal
        self.details = details
    }

    /// Hash field names the scripts read.
    public enum Field {
        public static let commitDeadline = "commitDeadline"
        public static let hookRefusal = "hookRefusal"
    }

    public var fields: [(String, String)] {
        var fields = [
            ("movieKey", movieKey), ("thumbnailKey", thumbnailKey),
            ("movieContentType", movie.type.rawValue), ("thumbnailContentType", thumbnail.type.rawValue),
            ("movieDeclaredBytes", String(movie.declaredBytes ?? 0)),
            ("thumbnailDeclaredBytes", String(thumbnail.declaredBytes ?? 0)),
            ("movieMaxBytes", String(movie.maxBytes)), ("thumbnailMaxBytes", String(thumbnail.maxBytes)),
            ("urlExpiresAt", String(urlExpiresAt)), (Field.commitDeadline, String(commitDeadline)),
        ]
        if let subject { fields.append(("subject", subject)) }
        if let hookRefusal { fields.append((Field.hookRefusal, hookRefusal)) }
        return fields + details.fields
    }

    public init?(streamId: Int64, uploadId: String, fields: [String: String]) {
        func object(_ name: String) -> UploadSpec.ObjectSpec? {
            guard let type = fields["\(name)ContentType"].flatMap(MediaType.init(rawValue:)),
                let declared = fields["\(name)DeclaredBytes"].flatMap({ Int64($0) }),
                let max = fields["\(name)MaxBytes"].flatMap({ Int64($0) })
            else { return nil }
            return .init(type: type, declaredBytes: declared == 0 ? nil : declared, maxBytes: max)
        }
        guard let movieKey = fields["movieKey"], let thumbnailKey = fields["thumbnailKey"],
            let movie = object("movie"), let thumbnail = object("thumbnail"),
            let expires = fields["urlExpiresAt"].flatMap({ Int64($0) }),
            let deadline = fields[Field.commitDeadline].flatMap({ Int64($0) })
        else { return nil }
        self.init(
            streamId: streamId, uploadId: uploadId, movieKey: movieKey, thumbnailKey: thumbnailKey,
            movie: movie, thumbnail: thumbnail, urlExpiresAt: expires, commitDeadline: deadline,
            subject: fields["subject"], hookRefusal: fields[Field.hookRefusal],
            details: PreviewDescription(fields: fields))
    }
}
