/// Signing times as operators write them (`--at 2025-01-15T12:34:56Z`) and as the V4
/// schemes put them in URLs (`X-Amz-Date` / `X-Goog-Date`, ISO 8601 basic format).
public enum SigningTimestamp {
    /// Unix seconds of exactly `yyyy-MM-dd'T'HH:mm:ss'Z'` (UTC, no fraction, no offset);
    /// nil for anything else.
    public static func parseISO8601(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        var basic: [UInt8] = []
        for range in [0..<4, 5..<7, 8..<10, 10..<11, 11..<13, 14..<16, 17..<19, 19..<20] {
            basic += bytes[range]
        }
        return SigV4Time.parseAmzDate(String(decoding: basic, as: UTF8.self))
    }

    /// `yyyyMMdd'T'HHmmss'Z'`; nil outside years 1970...9999.
    public static func basicFormat(_ unixSeconds: Int64) -> String? {
        SigV4Time.validRange.contains(unixSeconds) ? SigV4Time.amzDate(unixSeconds) : nil
    }
}
