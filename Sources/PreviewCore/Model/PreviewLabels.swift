/// The labels a commit hook may attach to a preview (`FeedItem.labels`, field 14): a few short
/// string pairs such as `{"rating": "general"}`, bounded so that a hook cannot make every feed
/// item of a stream large.
public enum PreviewLabels {
    public static let maxCount = 16
    public static let maxKeyBytes = 64
    public static let maxValueBytes = 256

    /// Why `labels` cannot be stored; nil when it can. Keys are 1–64 bytes of `[a-z0-9_.-]`;
    /// values are at most 256 bytes of UTF-8 without any character `TerminalText.isUnsafe`
    /// names (controls, line separators, bidirectional overrides): apps show them to viewers,
    /// and a label that reverses or restyles the text around it is no label.
    public static func problem(_ labels: [String: String]) -> String? {
        guard labels.count <= maxCount else { return "\(labels.count) labels; at most \(maxCount) are kept" }
        for (key, value) in labels.sorted(by: { $0.key < $1.key }) {
            guard (1...maxKeyBytes).contains(key.utf8.count), key.utf8.allSatisfy(isKeyByte) else {
                return "key \(key.debugDescription) is not 1 to \(maxKeyBytes) characters of a-z 0-9 _ . -"
            }
            guard value.utf8.count <= maxValueBytes else {
                return "\(key) has a value of \(value.utf8.count) bytes; at most \(maxValueBytes) are kept"
            }
            if let scalar = value.unicodeScalars.first(where: TerminalText.isUnsafe) {
                return "\(key) has a control, line-separator or bidirectional character "
                    + "(\(TerminalText.codePoint(scalar))) in its value"
            }
        }
        return nil
    }

    /// The labels as the preview hash keeps them: a JSON object, keys in byte order.
    public static func encode(_ labels: [String: String]) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.stringMap(labels)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The labels of a preview hash's field; nil when the text is not a JSON object of strings
    /// that `problem` accepts (the hash was not written by us).
    public static func decode(_ text: String) -> [String: String]? {
        guard let members = JSONValue.parse(Array(text.utf8))?.uniqueMembers else { return nil }
        var labels: [String: String] = [:]
        for member in members {
            guard case .string(let value) = member.value else { return nil }
            labels[member.key] = value
        }
        return problem(labels) == nil ? labels : nil
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
            UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
