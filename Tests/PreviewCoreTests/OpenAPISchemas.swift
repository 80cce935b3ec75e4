import Foundation

/// The `components/schemas` and `components/responses` of proto/openapi.yaml, read by indentation:
/// enough YAML for the block mappings and sequences and the flow sequences that file is written in
/// (no anchors, no multi-line flow mappings), so the drift tests need no YAML library.
struct OpenAPISchemas {
    struct Line: Equatable {
        var indent: Int
        var text: String
    }

    private static let quotes = CharacterSet(charactersIn: "'\"")

    /// Each schema's body lines, by name.
    let schemas: [String: [Line]]
    /// Each reusable response's body lines, by name.
    let responses: [String: [Line]]

    init(yaml: String) throws {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).compactMap(Self.line)
        schemas = try Self.components("schemas", in: lines)
        responses = try Self.components("responses", in: lines)
    }

    /// The entries of `components/<section>`, by name.
    private static func components(_ section: String, in lines: [Line]) throws -> [String: [Line]] {
        guard let components = lines.firstIndex(of: Line(indent: 0, text: "components:")),
            let start = lines[(components + 1)...].firstIndex(of: Line(indent: 2, text: "\(section):"))
        else { throw OpenAPIReadError("no components/\(section)") }
        let body = lines[(start + 1)...].prefix { $0.indent > 2 }
        var result: [String: [Line]] = [:]
        for entry in entries(Array(body)) { result[entry.key] = entry.body }
        return result
    }

    /// A line without its indentation and trailing blanks; nil for blank and comment lines.
    private static func line(_ raw: Substring) -> Line? {
        let indent = raw.prefix { $0 == " " }.count
        let text = raw.dropFirst(indent).trimmingTrailingBlanks
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        return Line(indent: indent, text: String(text))
    }

    /// One `key: value` line of a block and the lines nested under it. A sequence item
    /// (`- type: integer`) is an entry with key `-` whose body is the item as a mapping.
    struct Entry {
        var key: String
        var value: String
        var body: [Line]
    }

    /// The entries of a block at the indentation of its first line.
    static func entries(_ lines: [Line]) -> [Entry] {
        guard let level = lines.first?.indent else { return [] }
        var entries: [Entry] = []
        for line in lines {
            if line.indent == level {
                if line.text.hasPrefix("- ") {
                    // The item's first key moves in line with the keys under it.
                    let first = Line(indent: level + 2, text: String(line.text.dropFirst(2)))
                    entries.append(Entry(key: "-", value: first.text, body: [first]))
                } else {
                    let (key, value) = split(line.text)
                    entries.append(Entry(key: key, value: value, body: []))
                }
            } else if line.indent > level, !entries.isEmpty {
                entries[entries.count - 1].body.append(line)
            }
        }
        return entries
    }

    /// `key: value` (value possibly empty), the key unquoted.
    private static func split(_ text: String) -> (String, String) {
        guard let colon = text.firstIndex(of: ":") else { return (text, "") }
        let key = text[..<colon].trimmingCharacters(in: Self.quotes)
        let value = text[text.index(after: colon)...].drop { $0 == " " }
        return (String(key), String(value))
    }

    func entry(_ key: String, in body: [Line]) -> Entry? {
        Self.entries(body).first { $0.key == key }
    }

    /// The schema's properties with their bodies.
    func properties(of schema: String) -> [String: [Line]]? {
        guard let body = schemas[schema], let properties = entry("properties", in: body) else { return nil }
        var result: [String: [Line]] = [:]
        for property in Self.entries(properties.body) {
            result[property.key] = property.value.isEmpty ? property.body : [Line(indent: 0, text: property.value)]
        }
        return result
    }

    /// `required: [a, b, ...]`, the flow sequence possibly continued on the lines under it.
    func required(of schema: String) -> [String] {
        guard let body = schemas[schema], let required = entry("required", in: body) else { return [] }
        return Self.flowItems(([required.value] + required.body.map(\.text)).joined(separator: " "))
    }

    /// Whether the schema refuses properties it does not name (`additionalProperties: false`).
    func isClosed(_ schema: String) -> Bool {
        schemas[schema].flatMap { entry("additionalProperties", in: $0) }?.value == "false"
    }

    /// The JSON types a schema body admits: its `type`, the types of a `$ref`, `anyOf` or `oneOf`
    /// alternatives, and `enum` / `const` values (strings, or null). Empty when it names none.
    func jsonTypes(_ body: [Line], depth: Int = 0) -> Set<String> {
        guard depth < 16 else { return [] }
        var types: Set<String> = []
        for entry in Self.entries(body) {
            switch entry.key {
            case "type": types.formUnion(Self.flowItems(entry.value))
            case "$ref":
                let name = entry.value.trimmingCharacters(in: Self.quotes)
                    .replacingOccurrences(of: "#/components/schemas/", with: "")
                types.formUnion(schemas[name].map { jsonTypes($0, depth: depth + 1) } ?? [])
            case "anyOf", "oneOf":
                for item in Self.entries(entry.body) where item.key == "-" {
                    types.formUnion(jsonTypes(item.body, depth: depth + 1))
                }
            case "enum":
                let values =
                    entry.value.isEmpty ? Self.entries(entry.body).map(\.value) : Self.flowItems(entry.value)
                types.formUnion(values.map { $0 == "null" ? "null" : "string" })
            case "const": types.insert("string")
            default: continue
            }
        }
        return types
    }

    /// `[a, 'b', null]` or a bare scalar, as items (quotes and trailing comments removed).
    static func flowItems(_ text: String) -> [String] {
        var text = text
        if let comment = text.range(of: " #") { text = String(text[..<comment.lowerBound]) }
        let inner = text.trimmingCharacters(in: CharacterSet(charactersIn: " []"))
        return inner.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " '\"")) }
    }
}

struct OpenAPIReadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    fileprivate var trimmingTrailingBlanks: Substring {
        var text = self
        while let last = text.last, last == " " || last == "\r" { text = text.dropLast() }
        return text
    }
}
