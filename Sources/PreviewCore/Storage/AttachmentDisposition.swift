/// The `Content-Disposition` a download link asks the store to answer with
/// (`response-content-disposition`, signed into the URL), so a browser saves the clip under a
/// name that says what it is instead of playing `movie.mp4`.
public enum AttachmentDisposition {
    /// The signed query parameter S3, GCS and the local store take it in.
    public static let parameter = "response-content-disposition"

    /// `attachment; filename="stream-<id>-v<version>.<ext>"`, the extension the key's (ASCII
    /// by construction: `ObjectKeys`).
    public static func value(streamId: Int64, version: Int64, key: String) -> String {
        let name = key.split(separator: "/").last.map(String.init) ?? ""
        let ext = name.split(separator: ".").dropFirst().last.map { "." + $0 } ?? ""
        return "attachment; filename=\"stream-\(streamId)-v\(version)\(ext)\""
    }

    /// Whether the local store may answer with `value` as its `Content-Disposition`: `attachment`
    /// or `inline`, optionally with parameters, printable ASCII only (no header injection).
    public static func isAcceptable(_ value: String) -> Bool {
        let bytes = value.utf8
        guard bytes.count <= 512, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return false }
        let type = (value.split(separator: ";", maxSplits: 1).first?.trimmingSpacesAndTabs() ?? "").lowercased()
        return type == "attachment" || type == "inline"
    }
}
