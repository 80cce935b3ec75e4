/// Limits on uploads, and the validation of an upload request against them.
public struct UploadPolicy: Sendable, Equatable {
    public var maxMovieBytes: Int64 = 10 * 1024 * 1024
    public var maxThumbnailBytes: Int64 = 1024 * 1024
    /// How long the signed PUT URLs work.
    public var uploadURLTTL: Int64 = 900
    /// How long after the URLs expire a commit is still accepted (a PUT may finish late).
    public var commitWindow: Int64 = 300
    /// How long a committed preview stays in the feed.
    public var previewTTL: Int64 = 600
    /// Seconds after a commit at which a fresh preview is due (below `previewTTL`): told to
    /// uploaders as `refreshAfter`, and past it the feed marks the preview `stale`.
    public var previewRefresh: Int64 = 300
    /// How many uploads one stream may have issued and neither committed nor past their commit
    /// deadline; the next request is 429 `too_many_pending_uploads`.
    public var maxPendingUploads = 8
    /// Bytes one stream's objects may hold at once: issued uploads (their signed sizes), the
    /// live preview and replaced objects in their grace; over it, upload requests are 429
    /// `storage_quota_exceeded`. 0 is no limit.
    public var maxRetainedBytesPerStream: Int64 = 1 << 30
    /// The same bound over every upload one token subject issues (a subject may own many
    /// streams). 0 is no limit.
    public var maxRetainedBytesPerSubject: Int64 = 4 << 30
    /// Whether a request must declare `movieBytes` and `thumbnailBytes`: required when the
    /// storage backend cannot sign a size bound other than an exact length (S3).
    public var declaredSizes: DeclaredSizes = .optional

    public init() {}

    /// Whether upload requests must declare the object sizes.
    public enum DeclaredSizes: Sendable, Equatable {
        /// An undeclared size is bounded by the type's limit, which the upload URL signs.
        case optional
        /// An undeclared size is refused: the URL can bind only an exact `Content-Length`.
        case required
    }
}

/// A validated request for upload URLs.
public struct UploadSpec: Sendable, Equatable {
    public var streamId: Int64
    public var movie: ObjectSpec
    public var thumbnail: ObjectSpec

    public struct ObjectSpec: Sendable, Equatable {
        public var type: MediaType
        /// The exact size the client declared, if it did.
        public var declaredBytes: Int64?
        /// The most bytes the URL accepts: the declared size, or the type's limit.
        public var maxBytes: Int64

        public init(type: MediaType, declaredBytes: Int64?, maxBytes: Int64) {
            self.type = type
            self.declaredBytes = declaredBytes
            self.maxBytes = maxBytes
        }
    }

    public init(streamId: Int64, movie: ObjectSpec, thumbnail: ObjectSpec) {
        self.streamId = streamId
        self.movie = movie
        self.thumbnail = thumbnail
    }
}

extension UploadPolicy {
    /// Checks an upload request; sizes of 0 and empty types mean "not declared", as in proto3.
    /// An undeclared size is refused when `declaredSizes` is `.required`.
    public func validate(
        streamId: Int64, movieBytes: Int64, thumbnailBytes: Int64, movieContentType: String,
        thumbnailContentType: String
    ) -> Result<UploadSpec, APIError> {
        guard StreamID.isValid(streamId) else {
            return .failure(.invalid("streamId", "streamId must be a positive 64-bit integer"))
        }
        let movie = object(
            field: "movie", bytes: movieBytes, contentType: movieContentType, allowed: MediaType.clipTypes,
            limit: maxMovieBytes)
        let thumbnail = object(
            field: "thumbnail", bytes: thumbnailBytes, contentType: thumbnailContentType,
            allowed: MediaType.imageTypes, limit: maxThumbnailBytes)
        switch (movie, thumbnail) {
        case (.failure(let error), _), (_, .failure(let error)): return .failure(error)
        case (.success(let m), .success(let t)): return .success(UploadSpec(streamId: streamId, movie: m, thumbnail: t))
        }
    }

    private func object(
        field: String, bytes: Int64, contentType: String, allowed: [MediaType], limit: Int64
    ) -> Result<UploadSpec.ObjectSpec, APIError> {
        let type: MediaType
        if contentType.isEmpty {
            type = allowed[0]
        } else if let parsed = MediaType.parse(contentType), allowed.contains(parsed) {
            type = parsed
        } else {
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            return .failure(.invalid("\(field)ContentType", "\(field) content type must be one of \(names)"))
        }
        if bytes < 0 {
            return .failure(.invalid("\(field)Bytes", "\(field) size must not be negative"))
        }
        if bytes > limit {
            return .failure(.invalid("\(field)Bytes", "\(field) is \(bytes) bytes; the limit is \(limit)"))
        }
        if bytes == 0, declaredSizes == .required {
            return .failure(
                .invalid(
                    "\(field)Bytes",
                    "\(field)Bytes is required by this server's storage: its upload URLs sign the exact size"))
        }
        return .success(
            .init(type: type, declaredBytes: bytes == 0 ? nil : bytes, maxBytes: bytes == 0 ? limit : bytes))
    }
}
