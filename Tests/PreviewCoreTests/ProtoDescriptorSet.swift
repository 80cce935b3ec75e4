import PreviewCore
import ProtobufWire

/// A top-level message of proto/stream_preview.proto as protoc describes it.
struct ProtoMessageShape: Equatable {
    var name: String
    var fields: [ProtoFieldShape]
}

/// One field of a message (`google.protobuf.FieldDescriptorProto`).
struct ProtoFieldShape: Equatable {
    var name: String
    var number: Int32
    /// The name in the proto3 JSON mapping, as protoc computes it (`json_name`).
    var jsonName: String
    var kind: Kind

    enum Kind: Equatable {
        case bool, string, int32, int64, double
        case map
        case repeated(message: String)
        case message(String)
        /// A type the OpenAPI check has no rule for yet (its `FieldDescriptorProto.Type` number).
        case other(Int32)
    }
}

/// Reads a serialized `google.protobuf.FileDescriptorSet` (`protoc --descriptor_set_out`) with our
/// own `ProtoReader`; field numbers from google/protobuf/descriptor.proto.
enum ProtoDescriptorSet {
    static func messages(_ bytes: [UInt8]) throws -> [ProtoMessageShape] {
        var set = ProtoReader(bytes)
        var messages: [ProtoMessageShape] = []
        while let field = try set.nextField() {
            // FileDescriptorSet.file = 1.
            guard field.number == 1, field.wireType == .lengthDelimited else {
                try set.skip(field)
                continue
            }
            var file = try set.readMessage(field)
            while let fileField = try file.nextField() {
                // FileDescriptorProto.message_type = 4.
                guard fileField.number == 4, fileField.wireType == .lengthDelimited else {
                    try file.skip(fileField)
                    continue
                }
                var message = try file.readMessage(fileField)
                messages.append(try self.message(&message))
            }
        }
        return messages
    }

    /// DescriptorProto: name = 1, field = 2, nested_type = 3 (a map field's entry type, marked by
    /// MessageOptions.map_entry = 7 in options = 7).
    private static func message(_ reader: inout ProtoReader) throws -> ProtoMessageShape {
        var name = ""
        var raw: [RawField] = []
        var mapEntries: Set<String> = []
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): name = try reader.readString(field, name: "name")
            case (2, .lengthDelimited):
                var fieldReader = try reader.readMessage(field)
                raw.append(try self.field(&fieldReader))
            case (3, .lengthDelimited):
                var nested = try reader.readMessage(field)
                if let entry = try mapEntryName(&nested) { mapEntries.insert(entry) }
            default: try reader.skip(field)
            }
        }
        let fields = raw.map { field in
            ProtoFieldShape(
                name: field.name, number: field.number, jsonName: field.jsonName,
                kind: kind(of: field, mapEntries: mapEntries))
        }
        return ProtoMessageShape(name: name, fields: fields)
    }

    private struct RawField {
        var name = ""
        var number: Int32 = 0
        var repeated = false
        var type: Int32 = 0
        var typeName = ""
        var jsonName = ""
    }

    /// FieldDescriptorProto: name = 1, number = 3, label = 4 (3 repeated), type = 5,
    /// type_name = 6, json_name = 10.
    private static func field(_ reader: inout ProtoReader) throws -> RawField {
        var field = RawField()
        while let tag = try reader.nextField() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited): field.name = try reader.readString(tag, name: "name")
            case (3, .varint): field.number = try reader.readInt32(tag)
            case (4, .varint): field.repeated = try reader.readInt32(tag) == 3
            case (5, .varint): field.type = try reader.readInt32(tag)
            case (6, .lengthDelimited): field.typeName = try reader.readString(tag, name: "type_name")
            case (10, .lengthDelimited): field.jsonName = try reader.readString(tag, name: "json_name")
            default: try reader.skip(tag)
            }
        }
        return field
    }

    /// The nested type's name when it is a map entry.
    private static func mapEntryName(_ reader: inout ProtoReader) throws -> String? {
        var name = ""
        var isMapEntry = false
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): name = try reader.readString(field, name: "name")
            case (7, .lengthDelimited):
                var options = try reader.readMessage(field)
                while let option = try options.nextField() {
                    if option.number == 7, option.wireType == .varint {
                        isMapEntry = try options.readBool(option)
                    } else {
                        try options.skip(option)
                    }
                }
            default: try reader.skip(field)
            }
        }
        return isMapEntry ? name : nil
    }

    /// FieldDescriptorProto.Type: 3 int64, 5 int32, 8 bool, 9 string, 11 message.
    private static func kind(of field: RawField, mapEntries: Set<String>) -> ProtoFieldShape.Kind {
        let messageName = String(field.typeName.split(separator: ".").last ?? "")
        switch field.type {
        case 11 where field.repeated && mapEntries.contains(messageName): return .map
        case 11 where field.repeated: return .repeated(message: messageName)
        case 11: return .message(messageName)
        case _ where field.repeated: return .other(field.type)
        case 1: return .double
        case 3: return .int64
        case 5: return .int32
        case 8: return .bool
        case 9: return .string
        default: return .other(field.type)
        }
    }
}
