import Foundation
internal import ProtobufWire

/// How the client and the server write the API's messages: the proto3 JSON mapping, or the
/// protobuf encoding of proto/stream_preview.proto (smaller, faster to read on a phone).
public enum APIEncoding: String, Sendable, Hashable, CaseIterable {
    case json
    case protobuf

    /// The `Content-Type` and `Accept` value.
    public var contentType: String {
        switch self {
        case .json: return "application/json"
        case .protobuf: return "application/x-protobuf"
        }
    }

    /// Whether a `Content-Type` value (parameters and case aside) names this encoding.
    func matches(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        return essence.trimmingCharacters(in: .whitespaces).lowercased() == self.contentType
    }
}

/// A message the client sends, in either encoding.
protocol RequestMessage {
    func json() throws -> Data
    func protobuf() -> [UInt8]
}

extension RequestMessage {
    func encoded(_ encoding: APIEncoding) throws -> Data {
        encoding == .json ? try json() : Data(protobuf())
    }
}

/// A message the client reads: JSON through `Decodable`, protobuf field by field.
protocol ResponseMessage: Decodable {
    init(protobuf bytes: [UInt8]) throws(WireError)
}

/// `StreamPreviewPostRequest`.
struct PostRequest: RequestMessage {
    var streamId: Int64
    var movieBytes: Int64
    var thumbnailBytes: Int64
    var movieContentType: String
    var thumbnailContentType: String
    var details = PreviewDetails()

    func json() throws -> Data {
        var object: [String: Any] = [
            "streamId": String(streamId), "movieBytes": String(movieBytes), "thumbnailBytes": String(thumbnailBytes),
            "movieContentType": movieContentType, "thumbnailContentType": thumbnailContentType,
        ]
        if !details.title.isEmpty { object["title"] = details.title }
        if !details.category.isEmpty { object["category"] = details.category }
        if !details.language.isEmpty { object["language"] = details.language }
        if details.mature { object["mature"] = true }
        if !details.altText.isEmpty { object["altText"] = details.altText }
        return try JSONSerialization.data(withJSONObject: object)
    }

    func protobuf() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, streamId)
        writer.writeInt64(field: 2, movieBytes)
        writer.writeInt64(field: 3, thumbnailBytes)
        writer.writeString(field: 4, movieContentType)
        writer.writeString(field: 5, thumbnailContentType)
        writer.writeString(field: 7, details.title)
        writer.writeString(field: 8, details.category)
        writer.writeString(field: 9, details.language)
        writer.writeBool(field: 10, details.mature)
        writer.writeString(field: 11, details.altText)
        return writer.bytes
    }
}

/// `StreamPreviewCommitRequest`.
struct CommitRequest: RequestMessage {
    var streamId: Int64
    var uploadId: String

    func json() throws -> Data {
        try JSONSerialization.data(withJSONObject: ["streamId": String(streamId), "uploadId": uploadId])
    }

    func protobuf() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, streamId)
        writer.writeString(field: 2, uploadId)
        return writer.bytes
    }
}

extension FeedItem: ResponseMessage {
    /// `FeedItem` of proto/stream_preview.proto; unknown fields are skipped.
    init(protobuf bytes: [UInt8]) throws(WireError) {
        var reader = ProtoReader(bytes)
        try self.init(&reader)
    }

    init(_ reader: inout ProtoReader) throws(WireError) {
        self.init(streamId: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: streamId = try reader.readInt64(field)
            case 2: movieUrl = try reader.readString(field, name: "movieUrl")
            case 3: thumbnailUrl = try reader.readString(field, name: "thumbnailUrl")
            case 4: likes = try reader.readInt64(field)
            case 5: liked = try reader.readBool(field)
            case 6: seen = try reader.readBool(field)
            case 7: previewVersion = try reader.readInt64(field)
            case 8: updatedAt = try reader.readInt64(field)
            case 9: expiresAt = try reader.readInt64(field)
            case 10: durationMs = try reader.readInt64(field)
            case 11: width = try reader.readInt32(field)
            case 12: height = try reader.readInt32(field)
            case 13: fastStart = try reader.readBool(field)
            case 14:
                let (key, value) = try reader.readStringMapEntry(field, name: "labels")
                labels[key] = value
            case 15: stale = try reader.readBool(field)
            case 16: shareUrl = try reader.readString(field, name: "shareUrl")
            case 17: downloadUrl = try reader.readString(field, name: "downloadUrl")
            case 18: codecs = try reader.readString(field, name: "codecs")
            case 19: details.title = try reader.readString(field, name: "title")
            case 20: details.category = try reader.readString(field, name: "category")
            case 21: details.language = try reader.readString(field, name: "language")
            case 22: details.mature = try reader.readBool(field)
            case 23: details.altText = try reader.readString(field, name: "altText")
            default: try reader.skip(field)
            }
        }
    }
}

extension FeedBody: ResponseMessage {
    /// `FeedResponse`: its repeated `items`.
    init(protobuf bytes: [UInt8]) throws(WireError) {
        var reader = ProtoReader(bytes)
        items = []
        while let field = try reader.nextField() {
            guard field.number == 1 else {
                try reader.skip(field)
                continue
            }
            var item = try reader.readMessage(field)
            items.append(try FeedItem(&item))
        }
    }
}

extension PostResponse: ResponseMessage {
    /// `StreamPreviewPostResponse`.
    init(protobuf bytes: [UInt8]) throws(WireError) {
        var reader = ProtoReader(bytes)
        movieBodyUrl = ""
        movieThumbnailBodyUrl = ""
        uploadId = ""
        expiresAt = 0
        refreshAfter = 0
        movieHeaders = [:]
        thumbnailHeaders = [:]
        while let field = try reader.nextField() {
            switch field.number {
            case 1: movieBodyUrl = try reader.readString(field, name: "movieBodyUrl")
            case 2: movieThumbnailBodyUrl = try reader.readString(field, name: "movieThumbnailBodyUrl")
            case 3: uploadId = try reader.readString(field, name: "uploadId")
            case 4: expiresAt = try reader.readInt64(field)
            case 5:
                let (name, value) = try reader.readStringMapEntry(field, name: "movieHeaders")
                movieHeaders[name] = value
            case 6:
                let (name, value) = try reader.readStringMapEntry(field, name: "thumbnailHeaders")
                thumbnailHeaders[name] = value
            case 7: refreshAfter = try reader.readInt64(field)
            default: try reader.skip(field)
            }
        }
    }
}

extension LikeState: ResponseMessage {
    /// `LikeResponse`.
    init(protobuf bytes: [UInt8]) throws(WireError) {
        var reader = ProtoReader(bytes)
        self.init(likes: 0, liked: false)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: likes = try reader.readInt64(field)
            case 2: liked = try reader.readBool(field)
            default: try reader.skip(field)
            }
        }
    }
}

extension APIErrorBody {
    /// `ErrorResponse`; an empty `code` is none.
    init(protobuf bytes: [UInt8]) throws(WireError) {
        var reader = ProtoReader(bytes)
        self.init()
        while let field = try reader.nextField() {
            switch field.number {
            case 1: code = try reader.readString(field, name: "code")
            case 2: message = try reader.readString(field, name: "message")
            case 3: target = try reader.readString(field, name: "target")
            case 4: requestId = try reader.readString(field, name: "requestId")
            default: try reader.skip(field)
            }
        }
        if code?.isEmpty == true { code = nil }
    }
}
