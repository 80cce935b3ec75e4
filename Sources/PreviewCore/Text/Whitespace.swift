extension StringProtocol where UTF8View: BidirectionalCollection {
    /// Without leading and trailing spaces and horizontal tabs: HTTP's optional whitespace
    /// (`OWS`, RFC 9110 §5.6.3). Newlines and other Unicode whitespace stay, unlike
    /// Foundation's `trimmingCharacters(in: .whitespaces)`.
    /// Works on the UTF-8 bytes (both are ASCII), as HTTP defines them, and cheaply: every
    /// authenticated request trims its token.
    public func trimmingSpacesAndTabs() -> String {
        let bytes = utf8
        let isSpaceOrTab: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpaceOrTab($0) }),
            let last = bytes.lastIndex(where: { !isSpaceOrTab($0) })
        else { return "" }
        // Spaces and tabs are ASCII, so both ends are character boundaries: a plain copy.
        return String(self[first...last])
    }
}
