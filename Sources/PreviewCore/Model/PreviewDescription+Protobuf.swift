import ProtobufWire

/// The description's five protobuf fields, numbered alike in the upload request (7-11) and the
/// feed item (19-23): title, category, language, mature, altText from `first` on.
extension PreviewDescription {
    func write(to writer: inout ProtoWriter, firstField first: Int) {
        writer.writeString(field: first, title)
        writer.writeString(field: first + 1, category)
        writer.writeString(field: first + 2, language)
        writer.writeBool(field: first + 3, mature)
        writer.writeString(field: first + 4, altText)
    }

    /// Reads `field` when it is one of the five numbered from `first`; false (nothing read) when
    /// it is another field or has another wire type.
    mutating func read(_ field: ProtoField, from reader: inout ProtoReader, firstField first: Int) throws(WireError)
        -> Bool
    {
        switch (field.number - first, field.wireType) {
        case (0, .lengthDelimited): title = try reader.readString(field, name: "title")
        case (1, .lengthDelimited): category = try reader.readString(field, name: "category")
        case (2, .lengthDelimited): language = try reader.readString(field, name: "language")
        case (3, .varint): mature = try reader.readBool(field)
        case (4, .lengthDelimited): altText = try reader.readString(field, name: "altText")
        default: return false
        }
        return true
    }
}
