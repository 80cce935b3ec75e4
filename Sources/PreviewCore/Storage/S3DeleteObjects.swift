/// The request body and the answer of S3's multi-object delete, DeleteObjects (S3 API reference:
/// `POST /<bucket>?delete` with `<Delete><Quiet>true</Quiet><Object><Key>…</Key></Object>…</Delete>`,
/// at most 1,000 keys, answered by a `<DeleteResult>`). Pure: the storage adapter sends the body
/// and hands the answer back here.
///
/// In quiet mode S3 reports only the keys it could not delete (`<Error>` with `Key`, `Code`,
/// `Message`); every other key of the request is deleted. `NoSuchKey` counts as deleted.
public enum S3DeleteObjects {
    /// The most keys one request may name.
    public static let maxKeys = 1000
    /// Answers longer than this are not read (1,000 `<Error>` entries fit many times over).
    public static let maxResultBytes = 8 * 1024 * 1024

    /// What became of one key of a request.
    public enum KeyOutcome: Sendable, Equatable {
        case deleted
        /// Not known to be gone, with the store's code and message or why the answer was unusable.
        case failed(String)
    }

    /// One `<Error>` entry of a `<DeleteResult>`.
    public struct KeyError: Sendable, Equatable {
        public var key: String
        public var code: String?
        public var message: String?

        public init(key: String, code: String? = nil, message: String? = nil) {
            self.key = key
            self.code = code
            self.message = message
        }
    }

    // MARK: Request

    /// Whether XML 1.0 can carry `key` at all: it allows no C0 control character but tab, LF and
    /// CR (not even as a character reference), and neither U+FFFE nor U+FFFF. A key that fails
    /// this must be deleted on its own (a plain DELETE names it in the URL path).
    public static func canCarry(_ key: String) -> Bool {
        key.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: return true
            case 0x00...0x1F, 0xFFFE, 0xFFFF: return false
            default: return true
            }
        }
    }

    /// The XML body deleting `keys` in quiet mode, UTF-8. Each key is escaped by `escape`; the
    /// caller keeps to `maxKeys` and to keys `canCarry` accepts.
    public static func requestBody(keys: [String]) -> [UInt8] {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
        xml += "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>"
        for key in keys {
            xml += "<Object><Key>"
            xml += escape(key)
            xml += "</Key></Object>"
        }
        xml += "</Delete>"
        return Array(xml.utf8)
    }

    /// `text` as XML character data that any attribute or element may hold: `& < > " '` as the
    /// predefined entities, and every control character (C0, DEL, C1) as a decimal character
    /// reference, so no key can end an element, start markup or be changed by line-end
    /// normalisation (a raw CR would arrive as LF).
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += "&#\(scalar.value);"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    // MARK: Answer

    /// What became of each of `keys` (in their order) by a 200 answer whose body is
    /// `resultBody`. A body that is not a `<DeleteResult>` as described above (not XML, an
    /// `<Error>` document, cut short, an entry without a key) fails every key: nothing is
    /// known to be gone. Keys are matched as exact UTF-8 bytes.
    public static func outcomes(keys: [String], resultBody: [UInt8]) -> [KeyOutcome] {
        guard let errors = parseResult(resultBody) else {
            let reason = "the DeleteObjects answer is not a DeleteResult: " + excerpt(resultBody)
            return Array(repeating: .failed(reason), count: keys.count)
        }
        var reported: [[UInt8]: KeyError] = [:]
        for error in errors where error.code != "NoSuchKey" {
            reported[Array(error.key.utf8)] = error
        }
        return keys.map { key in
            guard let error = reported[Array(key.utf8)] else { return .deleted }
            var reason = error.code ?? "an error without a code"
            if let message = error.message { reason += " (\(message))" }
            return .failed(reason)
        }
    }

    /// The `<Error>` entries of a `<DeleteResult>`; nil when `body` is not one. `<Deleted>`
    /// entries (verbose mode) are skipped. Texts are entity-decoded; keys are not trimmed.
    public static func parseResult(_ body: [UInt8]) -> [KeyError]? {
        guard body.count <= maxResultBytes else { return nil }
        var scanner = XMLScanner(bytes: body)
        scanner.skipProlog()
        switch scanner.skipOpenTag("DeleteResult") {
        case nil: return nil
        case .selfClosed?:
            scanner.skipWhitespace()
            return scanner.atEnd ? [] : nil
        case .opened?: break
        }
        var errors: [KeyError] = []
        while true {
            scanner.skipWhitespace()
            if scanner.skipCloseTag("DeleteResult") {
                scanner.skipWhitespace()
                return scanner.atEnd ? errors : nil
            }
            if let deleted = scanner.element("Deleted") {
                guard XMLScanner.child("Key", in: deleted) != nil else { return nil }
                continue
            }
            guard let entry = scanner.element("Error"), let key = XMLScanner.child("Key", in: entry) else {
                return nil
            }
            errors.append(
                KeyError(
                    key: key, code: XMLScanner.child("Code", in: entry).flatMap(nonEmpty),
                    message: XMLScanner.child("Message", in: entry).flatMap(nonEmpty)))
        }
    }

    private static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingSpacesAndTabs()
        return trimmed.isEmpty ? nil : String(trimmed.prefix(300))
    }

    /// The start of an unusable answer, printable, for the failure message.
    private static func excerpt(_ body: [UInt8]) -> String {
        if body.isEmpty { return "(empty)" }
        let text = String(decoding: body.prefix(120), as: UTF8.self)
        let printable = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return "'" + printable + (body.count > 120 ? "…'" : "'")
    }
}

/// Just enough of an XML reader for S3's flat answers: a prolog, elements without attributes
/// (but the root's `xmlns`), text with entities. Anything else makes the caller give up.
private struct XMLScanner {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }

    mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    /// A UTF-8 byte order mark, whitespace and an `<?xml …?>` declaration, if present.
    mutating func skipProlog() {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        skipWhitespace()
        if bytes[position...].starts(with: Array("<?xml".utf8)),
            let end = Self.find(Array("?>".utf8), in: bytes, from: position)
        {
            position = end + 2
        }
        skipWhitespace()
    }

    enum OpenTag { case opened, selfClosed }

    /// `<name>`, `<name attributes…>` or `<name …/>` here (then skipped); nil when absent.
    mutating func skipOpenTag(_ name: String) -> OpenTag? {
        let open = Array("<\(name)".utf8)
        guard bytes[position...].starts(with: open) else { return nil }
        var cursor = position + open.count
        let next = cursor < bytes.count ? bytes[cursor] : 0
        guard next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || [0x20, 0x09, 0x0A, 0x0D].contains(next) else {
            return nil
        }
        while cursor < bytes.count, bytes[cursor] != UInt8(ascii: ">") { cursor += 1 }
        guard cursor < bytes.count else { return nil }
        position = cursor + 1
        return bytes[cursor - 1] == UInt8(ascii: "/") ? .selfClosed : .opened
    }

    mutating func skipCloseTag(_ name: String) -> Bool {
        let close = Array("</\(name)>".utf8)
        guard bytes[position...].starts(with: close) else { return false }
        position += close.count
        return true
    }

    /// The raw content of `<name>…</name>` starting here (skipped), nil when it does not start
    /// here or is not closed.
    mutating func element(_ name: String) -> ArraySlice<UInt8>? {
        let open = Array("<\(name)>".utf8)
        guard bytes[position...].starts(with: open),
            let close = Self.find(Array("</\(name)>".utf8), in: bytes, from: position + open.count)
        else { return nil }
        let content = bytes[(position + open.count)..<close]
        position = close + name.utf8.count + 3
        return content
    }

    /// The decoded text of the first `<name>…</name>` inside `content`, untrimmed; nil when
    /// absent or when it holds markup.
    static func child(_ name: String, in content: ArraySlice<UInt8>) -> String? {
        let open = Array("<\(name)>".utf8)
        guard let start = find(open, in: content, from: content.startIndex),
            let end = find(Array("</\(name)>".utf8), in: content, from: start + open.count)
        else { return nil }
        let raw = content[(start + open.count)..<end]
        guard !raw.contains(UInt8(ascii: "<")) else { return nil }
        return StoreErrorBody.decodeEntities(String(decoding: raw, as: UTF8.self))
    }

    /// The index of the first `pattern` in `bytes` at or after `from`.
    static func find<Bytes: RandomAccessCollection>(_ pattern: [UInt8], in bytes: Bytes, from: Int) -> Int?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard let first = pattern.first, from <= bytes.endIndex else { return nil }
        var index = from
        while index + pattern.count <= bytes.endIndex {
            if bytes[index] == first, bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
