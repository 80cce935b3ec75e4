import PreviewCore
import ProtobufWire
import Testing

@Suite("Wire: ProtoWriter")
struct WireProtoWriterTests {
    static let varints: [(UInt64, [UInt8])] = [
        (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test(arguments: varints)
    func varintsUseSevenBitGroupsLeastSignificantFirst(value: UInt64, expected: [UInt8]) {
        var writer = ProtoWriter()
        writer.writeVarint(value)
        #expect(writer.bytes == expected)
    }

    @Test func negativeInt64IsATenByteTwosComplementVarint() {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, -1)
        #expect(writer.bytes == [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
    }

    @Test func defaultValuesAreOmitted() {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, 0)
        writer.writeSInt64(field: 2, 0)
        writer.writeBool(field: 3, false)
        writer.writeString(field: 4, "")
        writer.writeStringMap(field: 5, [:])
        #expect(writer.bytes.isEmpty)
    }

    @Test(arguments: [
        (Int64(0), UInt64(0)), (-1, 1), (1, 2), (-2, 3), (Int64.max, UInt64.max - 1), (Int64.min, UInt64.max),
    ])
    func zigZagMapsSignedToUnsignedAndBack(signed: Int64, unsigned: UInt64) {
        #expect(ZigZag.encode(signed) == unsigned)
        #expect(ZigZag.decode(unsigned) == signed)
    }

    @Test func fixedWidthValuesAreLittleEndianAndReadBack() throws {
        var writer = ProtoWriter()
        writer.writeTag(field: 1, wireType: .fixed32)
        writer.writeFixed32(0x0102_0304)
        writer.writeTag(field: 2, wireType: .fixed64)
        writer.writeFixed64(0x0102_0304_0506_0708)
        writer.writeSInt64(field: 3, -3)
        #expect(writer.bytes == [0x0D, 4, 3, 2, 1, 0x11, 8, 7, 6, 5, 4, 3, 2, 1, 0x18, 5])

        var reader = ProtoReader(writer.bytes)
        let first = try #require(try reader.nextField())
        #expect(first == ProtoField(number: 1, wireType: .fixed32))
        #expect(try reader.readFixed32(first) == 0x0102_0304)
        let second = try #require(try reader.nextField())
        #expect(try reader.readFixed64(second) == 0x0102_0304_0506_0708)
        let third = try #require(try reader.nextField())
        #expect(try reader.readSInt64(third) == -3)
        #expect(try reader.nextField() == nil)
    }

    @Test func mapsAreWrittenInUTF8KeyOrderWithKeyAndValueInEveryEntry() {
        var writer = ProtoWriter()
        writer.writeStringMap(field: 5, ["b": "", "a": "1", "B": "2"])
        #expect(
            writer.bytes == [
                0x2A, 6, 0x0A, 1, 0x42, 0x12, 1, 0x32,  // "B": "2"
                0x2A, 6, 0x0A, 1, 0x61, 0x12, 1, 0x31,  // "a": "1"
                0x2A, 5, 0x0A, 1, 0x62, 0x12, 0,  // "b": ""
            ])
    }

    @Test func encodingIsDeterministicForEqualValues() {
        var copy = WireSamples.postResponse
        copy.movieHeaders = Dictionary(uniqueKeysWithValues: copy.movieHeaders.reversed())
        #expect(copy.protobufBytes() == WireSamples.postResponse.protobufBytes())
        #expect(copy.jsonBytes() == WireSamples.postResponse.jsonBytes())
    }
}
