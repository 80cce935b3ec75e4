/// Which object keys the embedded local store accepts as file names under its objects folder.
public enum ObjectKeyPath {
    /// Non-empty UTF-8 up to 1,024 bytes, relative, no empty, `.` or `..` segments, no NUL:
    /// a key can never leave the objects folder.
    public static func isSafe(_ key: String) -> Bool {
        let bytes = key.utf8
        guard !bytes.isEmpty, bytes.count <= ObjectKeyRule.maxBytes, !bytes.contains(0) else { return false }
        return key.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
    }
}
