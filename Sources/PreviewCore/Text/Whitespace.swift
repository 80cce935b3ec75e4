extension StringProtocol where UTF8View: BidirectionalCollection {
    /// Without leading and trailing spaces and horizontal tabs: HTTP's optional whitespace
    /// (`OWS`, RFC 9110 §5.6.3). Newlines and other Unicode whitespace stay, unlike
    /// Foundation's `trimmingCharacters(in: .whitespaces)`.
    /// Works on the UTF-8 bytes (both are ASCII), as HTTP defines them, and cheaply: every
    /// authenticated request trims its token. Spaces and tabs are ASCII, so both ends are
    /// character boundaries and the result is a plain copy of the bytes between.
    public func trimmingSpacesAndTabs() -> String {
        let trimmed = utf8.withContiguousStorageIfAvailable { bytes in
            var start = 0
            var end = bytes.count
            while start < end, Self.isSpaceOrTab(bytes[start]) { start += 1 }
            while end > start, Self.isSpaceOrTab(bytes[end - 1]) { end -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        if let trimmed { return trimmed }
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { !Self.isSpaceOrTab($0) }),
            let last = bytes.lastIndex(where: { !Self.isSpaceOrTab($0) })
        else { return "" }
        return String(self[first...last])
    }

    private static func isSpaceOrTab(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
