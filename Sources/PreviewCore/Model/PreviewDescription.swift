/// What the streamer says of one preview: shown to viewers (the title, the alt text a screen
/// reader announces), and what viewers narrow the feed by (category, language, mature). Sent
/// with each upload request and kept with that preview; the next upload states its own.
public struct PreviewDescription: Sendable, Equatable {
    public var title: String
    /// A slug (`music`, `just-chatting`): lower-case letters, digits and inner hyphens.
    public var category: String
    /// A BCP 47 language tag in its canonical case (`ja`, `pt-BR`, `zh-Hant-TW`).
    public var language: String
    public var mature: Bool
    /// What the clip shows, for screen readers.
    public var altText: String

    public init(
        title: String = "", category: String = "", language: String = "", mature: Bool = false, altText: String = ""
    ) {
        self.title = title
        self.category = category
        self.language = language
        self.mature = mature
        self.altText = altText
    }

    public static let maxTitleCharacters = 140
    public static let maxCategoryBytes = 40
    public static let maxAltTextCharacters = 500

    /// Hash field names, in the upload's hash and then the preview's; each absent when empty
    /// (false for `mature`).
    public enum Field {
        public static let title = "title"
        public static let category = "category"
        public static let language = "language"
        public static let mature = "mature"
        public static let altText = "altText"
    }

    public var fields: [(String, String)] {
        var fields: [(String, String)] = []
        if !title.isEmpty { fields.append((Field.title, title)) }
        if !category.isEmpty { fields.append((Field.category, category)) }
        if !language.isEmpty { fields.append((Field.language, language)) }
        if mature { fields.append((Field.mature, "1")) }
        if !altText.isEmpty { fields.append((Field.altText, altText)) }
        return fields
    }

    public init(fields: [String: String]) {
        self.init(
            title: fields[Field.title] ?? "", category: fields[Field.category] ?? "",
            language: fields[Field.language] ?? "", mature: fields[Field.mature] == "1",
            altText: fields[Field.altText] ?? "")
    }

    /// The five members as one JSON object, keys in byte order (the hook call's and webhooks'
    /// `details`).
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("altText")
        writer.string(altText)
        writer.key("category")
        writer.string(category)
        writer.key("language")
        writer.string(language)
        writer.key("mature")
        writer.bool(mature)
        writer.key("title")
        writer.string(title)
        writer.endObject()
    }

    /// Whether the streamer said nothing of the preview.
    public var isEmpty: Bool { self == PreviewDescription() }

    /// The description after the moderation hook's labels: a `mature` label of `true` or `false`
    /// sets the flag, and a `category` label that is a category (`categoryProblem`) replaces the
    /// streamer's; the hook has the last word on both, since it has seen the clip. Other labels,
    /// and these two, stay in the item's labels as the hook gave them.
    public func labelled(by labels: [String: String]) -> PreviewDescription {
        var description = self
        switch labels["mature"] {
        case "true"?: description.mature = true
        case "false"?: description.mature = false
        default: break
        }
        if let category = labels["category"], !category.isEmpty, Self.categoryProblem(category) == nil {
            description.category = category
        }
        return description
    }

    /// The description as sent, checked field by field: the language tag comes back in its
    /// canonical case. The error names the first field that is wrong (400 `invalid_argument`).
    public func validated() -> Result<PreviewDescription, APIError> {
        if let problem = Self.textProblem(title, name: "title", maxCharacters: Self.maxTitleCharacters) {
            return .failure(.invalid("title", problem))
        }
        if let problem = Self.categoryProblem(category) { return .failure(.invalid("category", problem)) }
        var canonicalLanguage = ""
        if !language.isEmpty {
            guard let tag = LanguageTag.canonical(language) else {
                return .failure(
                    .invalid(
                        "language",
                        "language must be a BCP 47 language tag such as ja, en-US or zh-Hant-TW"
                    ))
            }
            canonicalLanguage = tag
        }
        if let problem = Self.textProblem(altText, name: "altText", maxCharacters: Self.maxAltTextCharacters) {
            return .failure(.invalid("altText", problem))
        }
        return .success(
            PreviewDescription(
                title: title, category: category, language: canonicalLanguage, mature: mature, altText: altText))
    }

    /// Text shown to people: at most `maxCharacters` Unicode scalars (what JSON Schema's
    /// `maxLength` counts, so the API description says exactly this), and none of the
    /// characters `TerminalText.isUnsafe` names (controls, line and paragraph separators,
    /// bidirectional marks and overrides, the byte-order mark), as for the hook's labels: they
    /// could break a page's or a log's layout or reorder the text around them.
    static func textProblem(_ text: String, name: String, maxCharacters: Int) -> String? {
        let length = text.unicodeScalars.count
        guard length <= maxCharacters else {
            return "\(name) is \(length) characters long; at most \(maxCharacters) are allowed"
        }
        if let scalar = text.unicodeScalars.first(where: TerminalText.isUnsafe) {
            return "\(name) must not contain control characters (found \(TerminalText.codePoint(scalar)))"
        }
        return nil
    }

    static func categoryProblem(_ category: String) -> String? {
        guard !category.isEmpty else { return nil }
        let bytes = Array(category.utf8)
        let allowed = bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        guard allowed, bytes.count <= maxCategoryBytes, bytes.first != 0x2D, bytes.last != 0x2D else {
            return
                "category must be 1 to \(maxCategoryBytes) lower-case letters, digits and inner hyphens (music, just-chatting)"
        }
        return nil
    }
}
