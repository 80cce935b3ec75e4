import PreviewCore
import ProtobufWire
import Testing

/// Malformed and unusual protobuf input, message by message.
@Suite("Wire: ProtoReader")
struct WireProtoReaderTests {
    /// `streamId = 5, uploadId = "u"` as a StreamPreviewCommitRequest.
    static let commit: [UInt8] = [0x08, 0x05, 0x12, 0x01, 0x75]

    @Test func unknownFieldsOfEveryWireTypeAreSkipped() throws {
        var writer = ProtoWriter()
        writer.writeTag(field: 15, wireType: .varint)
        writer.writeVarint(UInt64.max)
        writer.writeTag(field: 16, wireType: .fixed64)
        writer.writeFixed64(1)
        let prefix = writer.bytes
        writer = ProtoWriter()
        writer.writeTag(field: 17, wireType: .lengthDelimited)
        writer.writeLengthDelimited([0xFF, 0x00, 0x07])
        // A group holding a varint, a nested group and a length-delimited value.
        writer.writeTag(field: 18, wireType: .startGroup)
        writer.writeTag(field: 1, wireType: .varint)
        writer.writeVarint(3)
        writer.writeTag(field: 19, wireType: .startGroup)
        writer.writeTag(field: 2, wireType: .lengthDelimited)
        writer.writeLengthDelimited([1, 2])
        writer.writeTag(field: 19, wireType: .endGroup)
        writer.writeTag(field: 18, wireType: .endGroup)
        writer.writeTag(field: 536_870_911, wireType: .fixed32)
        writer.writeFixed32(9)
        let input = prefix + Self.commit[0..<2] + writer.bytes + Self.commit[2...]
        #expect(
            try StreamPreviewCommitRequest(protobuf: input) == StreamPreviewCommitRequest(streamId: 5, uploadId: "u"))
    }

    @Test func aKnownFieldNumberWithTheWrongWireTypeIsSkippedAsUnknown() throws {
        // Field 1 (streamId) sent as length-delimited, field 2 (uploadId) as a varint.
        let input: [UInt8] = [0x0A, 0x01, 0x41, 0x10, 0x07] + Self.commit
        #expect(
            try StreamPreviewCommitRequest(protobuf: input) == StreamPreviewCommitRequest(streamId: 5, uploadId: "u"))
    }

    @Test func theLastOccurrenceOfAScalarFieldWins() throws {
        #expect(try LikeResponse(protobuf: [0x08, 0x01, 0x08, 0x02]).likes == 2)
    }

    @Test func anyNonzeroVarintIsATrueBool() throws {
        #expect(try LikeResponse(protobuf: [0x10, 0x02]).liked)
        #expect(try LikeResponse(protobuf: [0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]).liked)
        #expect(try LikeResponse(protobuf: [0x10, 0x80, 0x00]).liked == false)
    }

    @Test func anInt32KeepsTheLowThirtyTwoBitsOfAWiderVarint() throws {
        // FeedItem.width (field 11) = 2^32 + 320: parsers truncate int32 varints to 32 bits.
        var writer = ProtoWriter()
        writer.writeTag(field: 11, wireType: .varint)
        writer.writeVarint(1 << 32 | 320)
        writer.writeInt32(field: 12, -7)
        let item = try FeedItem(protobuf: writer.bytes)
        #expect(item.width == 320 && item.height == -7)
    }

    @Test func aTenByteVarintIsAcceptedAndAnElevenByteOneRejected() throws {
        let ten: [UInt8] = [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        #expect(try LikeResponse(protobuf: ten).likes == -1)
        let eleven: [UInt8] = [0x08] + Array(repeating: 0xFF, count: 10) + [0x01]
        #expect(throws: WireError.malformed("varint in field 1 longer than 10 bytes")) {
            try LikeResponse(protobuf: eleven)
        }
        #expect(throws: WireError.self) { try LikeResponse(protobuf: Array(repeating: 0x80, count: 11)) }
    }

    @Test func aLengthOfTwoToTheSixtySecondThrowsWithoutAllocating() {
        var writer = ProtoWriter()
        writer.writeTag(field: 2, wireType: .lengthDelimited)
        writer.writeVarint(1 << 62)
        writer.writeVarint(0)
        #expect(throws: WireError.malformed("length of field 2 runs past the end")) {
            try StreamPreviewCommitRequest(protobuf: writer.bytes)
        }
        // The same through the unknown-field path, and with UInt64.max.
        var unknown = ProtoWriter()
        unknown.writeTag(field: 99, wireType: .lengthDelimited)
        unknown.writeVarint(UInt64.max)
        #expect(throws: WireError.malformed("length of field 99 runs past the end")) {
            try FeedResponse(protobuf: unknown.bytes)
        }
    }

    @Test(arguments: [
        ([UInt8(0x00), 0x01], "field number 0"),
        ([0x0E, 0x01], "invalid wire type 6 in field 1"),
        ([0x0F, 0x01], "invalid wire type 7 in field 1"),
        ([0x0C], "unexpected end-group in field 1"),
        ([0x1B, 0x08, 0x01], "unterminated group in field 3"),
        ([0x1B, 0x24], "end-group 4 does not match group 3"),
        ([0x80, 0x80, 0x80, 0x80, 0x10], "tag out of range"),
        ([0x08], "truncated varint in field 1"),
        ([0x12, 0x05, 0x61], "length of field 2 runs past the end"),
        ([0x79, 0x01, 0x02], "truncated fixed64 in field 15"),
        ([0x7D, 0x01], "truncated fixed32 in field 15"),
    ])
    func malformedInputIsRejectedWithADescriptiveError(input: [UInt8], message: String) {
        #expect(throws: WireError.malformed(message)) { try StreamPreviewCommitRequest(protobuf: input) }
    }

    @Test func groupsNestedBeyondOneHundredAreRejectedAndWithinItSkipped() throws {
        func nested(_ depth: Int) -> [UInt8] {
            Array(repeating: 0x1B, count: depth) + Array(repeating: 0x1C, count: depth) + Self.commit
        }
        #expect(try StreamPreviewCommitRequest(protobuf: nested(100)).streamId == 5)
        #expect(throws: WireError.malformed("groups nested too deeply")) {
            try StreamPreviewCommitRequest(protobuf: nested(101))
        }
        #expect(throws: WireError.self) {
            try StreamPreviewCommitRequest(protobuf: Array(repeating: 0x1B, count: 100_000))
        }
    }

    @Test func invalidUTF8InAStringNamesTheField() {
        #expect(throws: WireError.invalidField(name: "uploadId", message: "not valid UTF-8")) {
            try StreamPreviewCommitRequest(protobuf: [0x12, 0x02, 0xC3, 0x28])
        }
        #expect(throws: WireError.invalidField(name: "movieHeaders", message: "not valid UTF-8")) {
            try StreamPreviewPostResponse(protobuf: [0x2A, 0x03, 0x0A, 0x01, 0xFF])
        }
    }

    @Test func mapEntriesMayOmitKeyOrValueAndCarryUnknownFields() throws {
        let input: [UInt8] = [
            0x2A, 0x03, 0x12, 0x01, 0x76,  // value "v", no key
            0x2A, 0x03, 0x0A, 0x01, 0x6B,  // key "k", no value
            0x2A, 0x00,  // neither
            0x2A, 0x07, 0x18, 0x01, 0x0A, 0x01, 0x6B, 0x12, 0x00,  // unknown field 3, key "k" again, value ""
        ]
        #expect(try StreamPreviewPostResponse(protobuf: input).movieHeaders == ["": "", "k": ""])
    }

    @Test func anErrorInsideAFeedItemFailsTheWholeFeed() {
        // items { streamId: <truncated varint> } with the item length claiming 2 bytes.
        #expect(throws: WireError.malformed("truncated varint in field 1")) {
            try FeedResponse(protobuf: [0x0A, 0x02, 0x08, 0x80])
        }
    }
}
