import Foundation
import PreviewCore
import Testing

/// Text from a server or a hook on a terminal: `TerminalText.escaped` writes what could restyle
/// the screen, forge a line or reverse the text as `\uXXXX`, and keeps everything else.
@Suite("Terminal text: control and bidirectional characters escaped")
struct TerminalTextTests {
    @Test(
        "ESC, BEL, line breaks, DEL, C1, bidirectional controls and line separators become \\uXXXX",
        arguments: [
            ("\u{1B}[2J\u{1B}]0;title\u{07}", #"\u001b[2J\u001b]0;title\u0007"#),
            ("a\nb\rc\td\u{0}", #"a\u000ab\u000dc\u0009d\u0000"#),
            ("\u{7F}\u{80}\u{9B}31m\u{9F}", #"\u007f\u0080\u009b31m\u009f"#),
            ("invoice\u{202E}gpj.exe", #"invoice\u202egpj.exe"#),
            ("\u{202A}\u{202B}\u{202C}\u{202D}", #"\u202a\u202b\u202c\u202d"#),
            ("\u{2066}\u{2067}\u{2068}\u{2069}", #"\u2066\u2067\u2068\u2069"#),
            ("\u{200E}\u{200F}\u{061C}", #"\u200e\u200f\u061c"#),
            ("line\u{2028}para\u{2029}", #"line\u2028para\u2029"#),
            ("\u{FEFF}bom", #"\ufeffbom"#),
        ])
    func escapes(_ text: String, _ expected: String) {
        #expect(TerminalText.escaped(text) == expected)
    }

    @Test("plain text, other Unicode and backslashes are kept as they are")
    func keeps() {
        for text in ["", "422 rejected_by_hook: no faces", #"c:\path \u001b"#, "café 日本 🎬", "\u{A0}\u{200B}\u{2030}"] {
            #expect(TerminalText.escaped(text) == text, "\(text.debugDescription)")
        }
    }

    @Test("escaped JSON is the same JSON: the characters can stand only inside its strings")
    func jsonStaysEqual() throws {
        let json = #"{"labels":{"a":"x\u001b[2J"},"title":"\#u{202E}evil\#u{9B}\#u{7F}"}"#
        let escaped = TerminalText.escaped(json)
        #expect(!escaped.unicodeScalars.contains(where: TerminalText.isUnsafe))
        let before = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary
        let after = try JSONSerialization.jsonObject(with: Data(escaped.utf8)) as? NSDictionary
        #expect(before != nil && before == after)
    }

    @Test("log values escape the same characters, U+061C included")
    func logValuesAgree() {
        #expect(LogfmtValue.quoted("a\u{061C}b\u{202E}") == #""a\u061cb\u202e""#)
    }
}
