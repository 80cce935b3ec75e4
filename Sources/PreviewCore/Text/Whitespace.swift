extension StringProtocol {
    /// Without leading and trailing spaces and horizontal tabs: HTTP's optional whitespace
    /// (`OWS`, RFC 9110 §5.6.3). Newlines and other Unicode whitespace stay, unlike
    /// Foundation's `trimmingCharacters(in: .whitespaces)`.
    public func trimmingSpacesAndTabs() -> String {
        let isSpaceOrTab: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpaceOrTab($0) }), let last = lastIndex(where: { !isSpaceOrTab($0) })
        else { return "" }
        return String(self[first...last])
    }
}
