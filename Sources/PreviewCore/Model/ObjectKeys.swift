/// Object keys in the bucket: `previews/<streamId>/<uploadId>/movie.<ext>` and
/// `.../thumbnail.<ext>`. Each upload gets fresh keys, so a URL never points at replaced bytes,
/// and the stream and upload can be read back from the key alone (the sweeper relies on it).
public enum ObjectKeys {
    public static let root = "previews"

    public static func movie(streamId: Int64, uploadId: String, type: MediaType) -> String {
        "\(root)/\(streamId)/\(uploadId)/movie.\(type.fileExtension)"
    }

    public static func thumbnail(streamId: Int64, uploadId: String, type: MediaType) -> String {
        "\(root)/\(streamId)/\(uploadId)/thumbnail.\(type.fileExtension)"
    }

    /// The stream and upload an object key belongs to, or nil for a key we did not make.
    public static func owner(of key: String) -> (streamId: Int64, uploadId: String)? {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == Substring(root), let stream = StreamID.parse(String(parts[1])),
            UploadID.isValid(String(parts[2]))
        else { return nil }
        return (stream, String(parts[2]))
    }
}

/// Upload IDs: 32 lowercase hex digits (128 random bits).
public enum UploadID {
    public static func make(randomBytes: [UInt8]) -> String {
        Hex.encode(randomBytes)
    }

    public static func isValid(_ text: String) -> Bool {
        text.utf8.count == 32
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
