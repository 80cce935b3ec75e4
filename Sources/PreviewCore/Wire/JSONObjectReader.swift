/// Reads the fields of a token part's JSON object (`JWTJSON`): absent and `null` give nil, the
/// usual forms give their value, and anything else sets `failed`, after which the token is
/// refused.
struct JSONObjectReader {
    let members: [JSONValue.Member]
    /// Set when some field was not in a form this reader decides; the values read are then void.
    private(set) var failed = false

    /// Nil unless `bytes` is valid UTF-8 holding one plain JSON object with distinct keys.
    init?(_ bytes: [UInt8]) {
        guard String(validating: bytes, as: UTF8.self) != nil, let value = JSONValue.parse(bytes) else { return nil }
        self.init(value)
    }

    init?(_ value: JSONValue) {
        guard let members = value.uniqueMembers else { return nil }
        self.members = members
    }

    /// The member's value; nil when absent.
    func value(_ name: String) -> JSONValue? {
        for member in members where member.key == name { return member.value }
        return nil
    }

    /// Whether the object has a member of that name, whatever its value.
    func contains(_ name: String) -> Bool { value(name) != nil }

    mutating func fail() { failed = true }

    /// A string field; nil when absent or null.
    mutating func optionalString(_ name: String) -> String? {
        switch value(name) {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default:
            failed = true
            return nil
        }
    }

    /// A JSON number field read as a Swift `Int64` (the JWT times); nil when absent or null.
    mutating func optionalNumber(_ name: String) -> Int64? {
        switch value(name) {
        case nil, .null?: return nil
        case .number(let text)?:
            if let parsed = Self.plainInteger(text) { return parsed }
        default: break
        }
        failed = true
        return nil
    }

    /// `-?(0|[1-9][0-9]*)` in the range of `Int64` (the parser has checked the grammar, so no
    /// `.`, `e` or `E` means a plain integer).
    static func plainInteger(_ text: String) -> Int64? {
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) else {
            return nil
        }
        return Int64(text)
    }
}
