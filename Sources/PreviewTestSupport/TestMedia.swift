/// Tiny payloads whose leading bytes look like the media types the service accepts (what commit sniffs:
/// MP4 `ftyp` box at offset 4, JPEG SOI, the PNG signature, RIFF....WEBP), plus junk that looks like none.
public enum TestMedia {
    /// An MP4: a 24-byte `ftyp` box (brand isom, minor 0x200, compatible isom iso2 mp41... cut to two), then an
    /// `mdat` box of `size` total bytes with a recognisable, position-dependent pattern (for range checks).
    public static func mp4(size: Int = 4096, seed: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8)
        let mdatSize = max(8, size - bytes.count)
        bytes += bigEndian32(UInt32(mdatSize)) + Array("mdat".utf8)
        bytes += pattern(count: mdatSize - 8, seed: seed)
        return bytes
    }

    /// A JPEG: SOI, an APP0/JFIF segment, then filler and EOI.
    public static func jpeg(size: Int = 1024, seed: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += pattern(count: max(0, size - bytes.count - 2), seed: seed)
        return bytes + [0xFF, 0xD9]
    }

    /// A PNG: the 8-byte signature, then filler.
    public static func png(size: Int = 512, seed: UInt8 = 0) -> [UInt8] {
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        return bytes + pattern(count: max(0, size - bytes.count), seed: seed)
    }

    /// A WebP: `RIFF`, the little-endian chunk size, `WEBP`, `VP8 `, then filler.
    public static func webp(size: Int = 512, seed: UInt8 = 0) -> [UInt8] {
        let total = max(20, size)
        let riffSize = UInt32(total - 8)
        let bytes: [UInt8] = Array("RIFF".utf8) + bigEndian32(riffSize).reversed() + Array("WEBPVP8 ".utf8)
        return bytes + pattern(count: total - bytes.count, seed: seed)
    }

    /// Bytes that start like no accepted type.
    public static func junk(size: Int = 2048) -> [UInt8] {
        let head = Array("this is not a video at all. ".utf8)
        return head + pattern(count: max(0, size - head.count), seed: 7)
    }

    private static func pattern(count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ ($0 >> 8)) }
    }

    private static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value)]
    }
}
