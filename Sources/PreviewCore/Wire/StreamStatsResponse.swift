public import ProtobufWire
/// GET /api/streams/{streamId}/stats: the figures of a stream's live and recent preview
/// versions, newest first (`message StreamStatsResponse` in proto/stream_preview.proto).
public struct StreamStatsResponse: Sendable, Equatable {
    /// Field 1.
    public var streamId: Int64
    /// Field 2 (`repeated PreviewVersionStats`).
    public var versions: [PreviewFigures]
    /// Field 3: where the stream's tracking link sends browsers; empty when none is set.
    public var watchUrl: String

    public init(streamId: Int64 = 0, versions: [PreviewFigures] = [], watchUrl: String = "") {
        self.streamId = streamId
        self.versions = versions
        self.watchUrl = watchUrl
    }
}

extension StreamStatsResponse: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .varint): streamId = try reader.readInt64(field)
            case (2, .lengthDelimited):
                var versionReader = try reader.readMessage(field)
                versions.append(try PreviewFigures(reading: &versionReader))
            case (3, .lengthDelimited): watchUrl = try reader.readString(field, name: "watchUrl")
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, streamId)
        for version in versions { writer.writeMessage(field: 2, version.protobufBytes()) }
        writer.writeString(field: 3, watchUrl)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        let dto = try WireJSON.decode(DTO.self, from: bytes)
        self.init(
            streamId: dto.streamId?.value ?? 0, versions: (dto.versions ?? []).map(PreviewFigures.init(dto:)),
            watchUrl: dto.watchUrl ?? "")
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + 320 * versions.count)
        writer.beginObject()
        writer.key("streamId")
        writer.int64String(streamId)
        writer.key("versions")
        writer.beginArray()
        for version in versions {
            writer.element()
            version.write(to: &writer)
        }
        writer.endArray()
        writer.key("watchUrl")
        writer.string(watchUrl)
        writer.endObject()
        return writer.bytes
    }

    var dto: DTO { DTO(streamId: JSONInt64(streamId), versions: versions.map(\.dto), watchUrl: watchUrl) }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var streamId: JSONInt64?
        var versions: [PreviewFigures.DTO]?
        var watchUrl: String?
    }
}

/// `message PreviewVersionStats`: one version's figures; `liveUntil` 0 while it is live.
extension PreviewFigures {
    init(reading reader: inout ProtoReader) throws(WireError) {
        self.init(previewVersion: 0, liveFrom: 0)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .varint): previewVersion = try reader.readInt64(field)
            case (2, .varint): liveFrom = try reader.readInt64(field)
            case (3, .varint):
                let until = try reader.readInt64(field)
                liveUntil = until == 0 ? nil : until
            case (4, .varint): impressions = try reader.readInt64(field)
            case (5, .varint): plays = try reader.readInt64(field)
            case (6, .varint): likes = try reader.readInt64(field)
            case (7, .varint): opens = try reader.readInt64(field)
            case (8, .varint): shares = try reader.readInt64(field)
            case (9, .varint): distinctImpressions = try reader.readInt64(field)
            case (10, .varint): distinctOpens = try reader.readInt64(field)
            // Field 11, openRate, is derived from the others.
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, previewVersion)
        writer.writeInt64(field: 2, liveFrom)
        writer.writeInt64(field: 3, liveUntil ?? 0)
        writer.writeInt64(field: 4, impressions)
        writer.writeInt64(field: 5, plays)
        writer.writeInt64(field: 6, likes)
        writer.writeInt64(field: 7, opens)
        writer.writeInt64(field: 8, shares)
        writer.writeInt64(field: 9, distinctImpressions)
        writer.writeInt64(field: 10, distinctOpens)
        writer.writeDouble(field: 11, openRate)
        return writer.bytes
    }

    /// The JSON object, keys sorted; also the `finalFigures` of a webhook event.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("distinctImpressions")
        writer.int64String(distinctImpressions)
        writer.key("distinctOpens")
        writer.int64String(distinctOpens)
        writer.key("impressions")
        writer.int64String(impressions)
        writer.key("likes")
        writer.int64String(likes)
        writer.key("liveFrom")
        writer.int64String(liveFrom)
        writer.key("liveUntil")
        writer.int64String(liveUntil ?? 0)
        writer.key("openRate")
        writer.double(openRate)
        writer.key("opens")
        writer.int64String(opens)
        writer.key("plays")
        writer.int64String(plays)
        writer.key("previewVersion")
        writer.int64String(previewVersion)
        writer.key("shares")
        writer.int64String(shares)
        writer.endObject()
    }

    init(dto: DTO) {
        let until = dto.liveUntil?.value ?? 0
        self.init(
            previewVersion: dto.previewVersion?.value ?? 0, liveFrom: dto.liveFrom?.value ?? 0,
            liveUntil: until == 0 ? nil : until, impressions: dto.impressions?.value ?? 0,
            plays: dto.plays?.value ?? 0, likes: dto.likes?.value ?? 0, opens: dto.opens?.value ?? 0,
            shares: dto.shares?.value ?? 0, distinctImpressions: dto.distinctImpressions?.value ?? 0,
            distinctOpens: dto.distinctOpens?.value ?? 0)
    }

    var dto: DTO {
        DTO(
            previewVersion: JSONInt64(previewVersion), liveFrom: JSONInt64(liveFrom),
            liveUntil: JSONInt64(liveUntil ?? 0), impressions: JSONInt64(impressions), plays: JSONInt64(plays),
            likes: JSONInt64(likes), opens: JSONInt64(opens), shares: JSONInt64(shares),
            distinctImpressions: JSONInt64(distinctImpressions), distinctOpens: JSONInt64(distinctOpens),
            openRate: openRate)
    }

    struct DTO: Codable {
        var previewVersion: JSONInt64?
        var liveFrom: JSONInt64?
        var liveUntil: JSONInt64?
        var impressions: JSONInt64?
        var plays: JSONInt64?
        var likes: JSONInt64?
        var opens: JSONInt64?
        var shares: JSONInt64?
        var distinctImpressions: JSONInt64?
        var distinctOpens: JSONInt64?
        var openRate: Double?
    }
}
