/// BCP 47 language tags (RFC 5646): whether a tag is well-formed (§2.1: the syntax of its
/// subtags, not whether the registry lists them), and its canonical case (§2.1.1).
public enum LanguageTag {
    public static let maxLength = 64

    /// The tag in canonical case (`en-us` → `en-US`, `zh-hant-tw` → `zh-Hant-TW`); nil when it
    /// is not well-formed. Grandfathered irregular tags (`i-klingon`) are not accepted.
    public static func canonical(_ tag: String) -> String? {
        guard !tag.isEmpty, tag.utf8.count <= maxLength,
            tag.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") })
        else { return nil }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map { String($0).lowercased() }
        guard subtags.allSatisfy({ (1...8).contains($0.utf8.count) }) else { return nil }
        var output: [String] = []
        var index = 0
        func next(_ matches: (String) -> Bool) -> String? {
            guard index < subtags.count, matches(subtags[index]) else { return nil }
            defer { index += 1 }
            return subtags[index]
        }
        if subtags[0] == "x" { return privateUse(subtags) }
        // language: 2-3 letters with up to three extlangs, or 4, or 5-8 letters.
        guard let language = next({ isAlpha($0) && $0.utf8.count >= 2 }) else { return nil }
        output.append(language)
        if language.utf8.count <= 3 {
            for _ in 0..<3 {
                guard let extlang = next({ isAlpha($0) && $0.utf8.count == 3 }) else { break }
                output.append(extlang)
            }
        }
        if let script = next({ isAlpha($0) && $0.utf8.count == 4 }) {
            output.append(script.prefix(1).uppercased() + script.dropFirst())
        }
        if let region = next({ (isAlpha($0) && $0.utf8.count == 2) || (isDigits($0) && $0.utf8.count == 3) }) {
            output.append(region.uppercased())
        }
        while let variant = next({ isVariant($0) }) { output.append(variant) }
        // extensions: a singleton other than x, then subtags of 2-8.
        while let singleton = next({ $0.utf8.count == 1 && $0 != "x" }) {
            output.append(singleton)
            var count = 0
            while let part = next({ $0.utf8.count >= 2 }) {
                output.append(part)
                count += 1
            }
            guard count > 0 else { return nil }
        }
        if index < subtags.count {
            guard subtags[index] == "x", let rest = privateUse(Array(subtags[index...])) else { return nil }
            output.append(rest)
            index = subtags.count
        }
        return output.joined(separator: "-")
    }

    /// `x` then one or more subtags of 1-8 alphanumerics.
    private static func privateUse(_ subtags: [String]) -> String? {
        guard subtags.first == "x", subtags.count > 1 else { return nil }
        return subtags.joined(separator: "-")
    }

    /// 5-8 alphanumerics, or a digit and three alphanumerics.
    private static func isVariant(_ subtag: String) -> Bool {
        let bytes = Array(subtag.utf8)
        return bytes.count >= 5 || (bytes.count == 4 && ASCII.isDigit(bytes[0]))
    }

    private static func isAlpha(_ subtag: String) -> Bool { subtag.utf8.allSatisfy(ASCII.isLetter) }

    private static func isDigits(_ subtag: String) -> Bool { subtag.utf8.allSatisfy(ASCII.isDigit) }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool { ASCII.isLetter(byte) || ASCII.isDigit(byte) }
}
