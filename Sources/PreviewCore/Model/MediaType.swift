/// The content types a preview may have, and how to recognise each from its leading bytes.
public enum MediaType: String, Sendable, CaseIterable {
    case mp4 = "video/mp4"
    case quickTime = "video/quicktime"
    case jpeg = "image/jpeg"
    case png = "image/png"
    case webp = "image/webp"

    public static let clipTypes: [MediaType] = [.mp4, .quickTime]
    public static let imageTypes: [MediaType] = [.jpeg, .png, .webp]

    public var fileExtension: String {
        switch self {
        case .mp4: return "mp4"
        case .quickTime: return "mov"
        case .jpeg: return "jpg"
        case .png: return "png"
        case .webp: return "webp"
        }
    }

    /// How many leading bytes `matches` needs to decide.
    public static let sniffLength = 16

    /// Whether `prefix` starts like this type: ISO BMFF `ftyp` box at offset 4 for MP4 and
    /// QuickTime (ISO/IEC 14496-12 §4.3), JPEG SOI + marker, the PNG signature, RIFF....WEBP.
    public func matches(_ prefix: [UInt8]) -> Bool {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            prefix.count >= offset + bytes.count && Array(prefix[offset..<offset + bytes.count]) == bytes
        }
        switch self {
        case .mp4, .quickTime:
            return starts(Array("ftyp".utf8), at: 4)
        case .jpeg:
            return starts([0xFF, 0xD8, 0xFF])
        case .png:
            return starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .webp:
            return starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8)
        }
    }

    /// Parses a Content-Type value, ignoring parameters and case (`Video/MP4; codecs=...`).
    public static func parse(_ contentType: String) -> MediaType? {
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        return MediaType(rawValue: essence.trimmingSpacesAndTabs().lowercased())
    }
}
