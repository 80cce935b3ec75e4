/// What a webhook tells a receiver: one change of a stream's preview.
public enum WebhookEventType: String, Sendable, CaseIterable {
    /// A commit made a preview live on a stream that had none (or only an expired one).
    case published = "preview.published"
    /// A commit replaced a live preview; the event carries the old and the new version.
    case replaced = "preview.replaced"
    /// A preview version left: ended, expired, or (replaced earlier) its objects were deleted.
    case removed = "preview.removed"
}

/// Why a `preview.removed` event was sent.
public enum WebhookRemovalReason: String, Sendable, CaseIterable {
    /// The stream ended (DELETE /api/preview/{id}).
    case ended
    /// The preview's TTL ran out (found by the sweeper, or by the commit that followed it).
    case expired
    /// The version was replaced earlier and its objects are now deleted: its URLs stop working.
    case replaced
}

/// One webhook event as stored in Redis (flat string fields, written by the scripts that make
/// the change) and as sent to receivers (`jsonBody`). Events are immutable: a retry or a
/// replay sends the same bytes apart from the signature's timestamp.
public struct WebhookEvent: Sendable, Equatable {
    /// `evt_` and 32 hex digits, unique per event: receivers drop duplicates by it.
    public var id: String
    public var type: WebhookEventType
    /// Unix seconds when the change was made.
    public var createdAt: Int64
    public var streamId: Int64
    /// The version the event is about: the new one for published and replaced, the removed one
    /// for removed.
    public var previewVersion: Int64
    public var uploadId: String
    /// Published and replaced: when the new preview leaves the feed unless replaced first.
    public var expiresAt: Int64?
    /// Replaced: the version and upload that were live before.
    public var previousVersion: Int64?
    public var previousUploadId: String?
    /// Removed: why.
    public var reason: WebhookRemovalReason?
    /// Replaced, and removed for an end or expiry: the figures of the version that stopped being
    /// live (the previous one of a replacement), when it counted any (`PreviewFigures`).
    public var finalFigures: PreviewFigures?
    /// Published and replaced: what the streamer said of the new version, when anything
    /// (`PreviewDescription`, after the moderation hook's labels).
    public var details: PreviewDescription?

    public init(
        id: String, type: WebhookEventType, createdAt: Int64, streamId: Int64, previewVersion: Int64,
        uploadId: String, expiresAt: Int64? = nil, previousVersion: Int64? = nil, previousUploadId: String? = nil,
        reason: WebhookRemovalReason? = nil, finalFigures: PreviewFigures? = nil, details: PreviewDescription? = nil
    ) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.streamId = streamId
        self.previewVersion = previewVersion
        self.uploadId = uploadId
        self.expiresAt = expiresAt
        self.previousVersion = previousVersion
        self.previousUploadId = previousUploadId
        self.reason = reason
        self.finalFigures = finalFigures
        self.details = details
    }

    /// The names of the stored fields (the Lua scripts write the same names).
    public enum Field {
        public static let id = "id"
        public static let type = "type"
        public static let createdAt = "createdAt"
        public static let streamId = "streamId"
        public static let previewVersion = "previewVersion"
        public static let uploadId = "uploadId"
        public static let expiresAt = "expiresAt"
        public static let previousVersion = "previousVersion"
        public static let previousUploadId = "previousUploadId"
        public static let reason = "reason"
        /// The prefix of the final figures' fields (`final.liveFrom`, `final.likes`, ...).
        public static let finalPrefix = "final."
        /// The prefix of the description's fields (`details.title`, ...), as the preview hash names them.
        public static let detailsPrefix = "details."
    }

    /// Reads stored fields; nil when a required one is missing or malformed (an entry written by
    /// another version, or by hand).
    public init?(fields: [String: String]) {
        guard let id = fields[Field.id], Self.isValidID(id),
            let type = fields[Field.type].flatMap(WebhookEventType.init(rawValue:)),
            let createdAt = fields[Field.createdAt].flatMap({ Int64($0) }),
            let streamId = fields[Field.streamId].flatMap(StreamID.parse),
            let version = fields[Field.previewVersion].flatMap({ Int64($0) }), version > 0,
            let uploadId = fields[Field.uploadId]
        else { return nil }
        self.init(
            id: id, type: type, createdAt: createdAt, streamId: streamId, previewVersion: version, uploadId: uploadId,
            expiresAt: fields[Field.expiresAt].flatMap { Int64($0) },
            previousVersion: fields[Field.previousVersion].flatMap { Int64($0) },
            previousUploadId: fields[Field.previousUploadId],
            reason: fields[Field.reason].flatMap(WebhookRemovalReason.init(rawValue:)))
        var final: [String: String] = [:]
        for (name, value) in fields where name.hasPrefix(Field.finalPrefix) {
            final[String(name.dropFirst(Field.finalPrefix.count))] = value
        }
        finalFigures = PreviewFigures(previewVersion: previousVersion ?? version, fields: final)
        var described: [String: String] = [:]
        for (name, value) in fields where name.hasPrefix(Field.detailsPrefix) {
            described[String(name.dropFirst(Field.detailsPrefix.count))] = value
        }
        details = described.isEmpty ? nil : PreviewDescription(fields: described)
        switch type {
        case .published: guard expiresAt != nil else { return nil }
        case .replaced: guard expiresAt != nil, previousVersion != nil, previousUploadId != nil else { return nil }
        case .removed: guard reason != nil else { return nil }
        }
    }

    /// The fields to store, in a fixed order (absent optionals left out).
    public var fields: [(String, String)] {
        var out: [(String, String)] = [
            (Field.id, id), (Field.type, type.rawValue), (Field.createdAt, String(createdAt)),
            (Field.streamId, String(streamId)), (Field.previewVersion, String(previewVersion)),
            (Field.uploadId, uploadId),
        ]
        if let expiresAt { out.append((Field.expiresAt, String(expiresAt))) }
        if let previousVersion { out.append((Field.previousVersion, String(previousVersion))) }
        if let previousUploadId { out.append((Field.previousUploadId, previousUploadId)) }
        if let reason { out.append((Field.reason, reason.rawValue)) }
        for (name, value) in finalFigures?.fields ?? [] { out.append((Field.finalPrefix + name, value)) }
        for (name, value) in details?.fields ?? [] { out.append((Field.detailsPrefix + name, value)) }
        return out
    }

    /// The body POSTed to receivers: `{"id","type","createdAt","data":{...}}`, int64 values as
    /// JSON strings (proto3 JSON, as the API writes them), absent fields left out, no whitespace.
    public var jsonBody: [UInt8] {
        var writer = JSONWriter(capacity: 320)
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("type")
        writer.string(type.rawValue)
        writer.key("createdAt")
        writer.int64String(createdAt)
        writer.key("data")
        writer.beginObject()
        writer.key("streamId")
        writer.int64String(streamId)
        writer.key("previewVersion")
        writer.int64String(previewVersion)
        writer.key("uploadId")
        writer.string(uploadId)
        if let expiresAt {
            writer.key("expiresAt")
            writer.int64String(expiresAt)
        }
        if let previousVersion {
            writer.key("previousVersion")
            writer.int64String(previousVersion)
        }
        if let previousUploadId {
            writer.key("previousUploadId")
            writer.string(previousUploadId)
        }
        if let finalFigures {
            writer.key("finalFigures")
            finalFigures.write(to: &writer)
        }
        if let details {
            writer.key("details")
            details.write(to: &writer)
        }
        if let reason {
            writer.key("reason")
            writer.string(reason.rawValue)
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// `evt_` and 32 lower-case hex digits: a random nonce of 28 digits the script is given and
    /// 4 digits it counts the events of one call with.
    public static func isValidID(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        return utf8.count == 36 && text.hasPrefix("evt_")
            && utf8[4...].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// A fresh nonce for one script call's events (`isValidID`): 14 random bytes as hex.
    public static func makeNonce<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        Hex.encode((0..<14).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
