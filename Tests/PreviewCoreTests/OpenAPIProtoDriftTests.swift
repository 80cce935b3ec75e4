import Foundation
import PreviewCore
import PreviewTestSupport
import ProtobufWire
import Testing

/// What in proto/openapi.yaml disagrees with proto/stream_preview.proto: every message needs a
/// schema of its name with a property per field (by its JSON name) of the JSON types the proto3
/// mapping gives it. A schema with `additionalProperties: false` describes an answer: every field
/// is required there (default values are always written; a map may be left out when empty, as
/// proto3 JSON allows), int64 is a string, and it names nothing the message lacks.
enum OpenAPIDrift {
    static func problems(messages: [ProtoMessageShape], openAPI: OpenAPISchemas) -> [String] {
        var problems: [String] = []
        for message in messages {
            guard let properties = openAPI.properties(of: message.name) else {
                problems.append("message \(message.name) has no schema with properties in components/schemas")
                continue
            }
            let closed = openAPI.isClosed(message.name)
            let required = Set(openAPI.required(of: message.name))
            for field in message.fields {
                let place = "\(message.name).\(field.jsonName) (field \(field.number))"
                guard let body = properties[field.jsonName] else {
                    problems.append("\(place) is missing from components/schemas/\(message.name)")
                    continue
                }
                let types = openAPI.jsonTypes(body)
                if !admits(types, field.kind, closed: closed) {
                    problems.append("\(place): the schema admits \(types.sorted()), not \(field.kind)")
                }
                if closed, !required.contains(field.jsonName), field.kind != .map {
                    problems.append("\(place) is always written, so \(message.name) must list it in required")
                }
            }
            if closed {
                let names = Set(message.fields.map(\.jsonName))
                for extra in properties.keys.sorted() where !names.contains(extra) {
                    problems.append("components/schemas/\(message.name) has \(extra), which the message has not")
                }
            }
        }
        return problems
    }

    /// The proto3 JSON mapping: answers write int64 as strings; requests read numbers or strings
    /// (and null, which is the default value).
    private static func admits(_ types: Set<String>, _ kind: ProtoFieldShape.Kind, closed: Bool) -> Bool {
        let written = types.subtracting(closed ? [] : ["null"])
        switch kind {
        case .bool: return written == ["boolean"]
        case .string: return written == ["string"]
        case .int32: return written == (closed ? ["integer"] : ["integer", "string"])
        case .int64: return written == (closed ? ["string"] : ["integer", "string"])
        case .double: return written == ["number"]
        case .map, .message: return written == ["object"]
        case .repeated: return written == ["array"]
        case .other: return false
        }
    }
}

@Suite("OpenAPI: proto/openapi.yaml describes every field of proto/stream_preview.proto")
struct OpenAPIProtoDriftTests {
    static func messages() throws -> [ProtoMessageShape] {
        try ProtoDescriptorSet.messages(try Protoc.descriptorSet())
    }

    static func yaml() throws -> String {
        try String(contentsOfFile: TestPaths.repositoryRoot + "/proto/openapi.yaml", encoding: .utf8)
    }

    @Test("protoc's descriptor of the proto is read: every message, field names, JSON names and kinds")
    func descriptorIsRead() throws {
        let messages = try Self.messages()
        #expect(
            messages.map(\.name) == [
                "StreamPreviewPostRequest", "StreamPreviewPostResponse", "StreamPreviewCommitRequest", "FeedItem",
                "FeedResponse", "FeedRemovedEvent", "FeedLikesEvent", "LikeResponse", "ErrorResponse",
                "StreamStatsResponse", "PreviewVersionStats", "WatchUrlRequest",
            ])
        let post = try #require(messages.first { $0.name == "StreamPreviewPostResponse" })
        #expect(post.fields.map(\.jsonName) == post.fields.map(\.name))
        #expect(post.fields.first { $0.name == "movieHeaders" }?.kind == .map)
        #expect(post.fields.first { $0.name == "expiresAt" }?.kind == .int64)
        let feed = try #require(messages.first { $0.name == "FeedResponse" })
        #expect(feed.fields.first?.kind == .repeated(message: "FeedItem"))
    }

    @Test("every proto field is in its schema, of the JSON types the proto3 mapping gives it")
    func schemaMatchesProto() throws {
        let openAPI = try OpenAPISchemas(yaml: try Self.yaml())
        let problems = OpenAPIDrift.problems(messages: try Self.messages(), openAPI: openAPI)
        #expect(problems == [])
    }

    @Test("every error code the server has is in the schema's ErrorCode enum")
    func everyErrorCodeIsDescribed() throws {
        let openAPI = try OpenAPISchemas(yaml: try Self.yaml())
        let body = try #require(openAPI.schemas["ErrorCode"])
        let items = OpenAPISchemas.entries(try #require(openAPI.entry("enum", in: body)).body)
        let values = Set(items.flatMap { OpenAPISchemas.flowItems($0.value) })
        let missing = APIError.Code.allCases.map(\.rawValue).filter { !values.contains($0) }
        #expect(values.count == items.count)
        #expect(missing == [])
    }

    @Test("a proto field missing from its schema is reported")
    func missingFieldIsReported() throws {
        let yaml = try Self.yaml()
        let property =
            "        fastStart:\n          description: Whether the clip's moov box precedes its media data.\n"
            + "          type: boolean\n"
        #expect(yaml.contains(property))
        let openAPI = try OpenAPISchemas(yaml: yaml.replacingOccurrences(of: property, with: ""))
        let problems = OpenAPIDrift.problems(messages: try Self.messages(), openAPI: openAPI)
        #expect(problems.contains("FeedItem.fastStart (field 13) is missing from components/schemas/FeedItem"))
    }

    @Test("an answer's int64 described as a JSON number is reported")
    func int64AsNumberIsReported() throws {
        let yaml = try Self.yaml()
        let likes =
            "    LikeResponse:\n      type: object\n      additionalProperties: false\n"
            + "      required: [likes, liked]\n      properties:\n        likes:\n"
            + "          $ref: '#/components/schemas/Int64'\n"
        #expect(yaml.contains(likes))
        let changed = likes.replacingOccurrences(
            of: "          $ref: '#/components/schemas/Int64'\n", with: "          type: integer\n")
        let openAPI = try OpenAPISchemas(yaml: yaml.replacingOccurrences(of: likes, with: changed))
        let problems = OpenAPIDrift.problems(messages: try Self.messages(), openAPI: openAPI)
        #expect(problems.contains("LikeResponse.likes (field 1): the schema admits [\"integer\"], not int64"))
    }
}
