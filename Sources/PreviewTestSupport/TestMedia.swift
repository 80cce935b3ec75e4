/// Tiny payloads whose leading bytes look like the media types the service accepts (what commit sniffs:
/// MP4 `ftyp` box at offset 4, JPEG SOI, the PNG signature, RIFF....WEBP), plus junk that looks like none.
public enum TestMedia {
    /// A fast-start MP4 of about `size` bytes: `ftyp` (isom), then `moov` with `mvhd` (duration `durationMs`,
    /// timescale 1000) and one video `trak` (`tkhd` of `width` x `height`, `mdia/hdlr` type `vide`, and
    /// `mdia/minf/stbl/stsd` with one H.264 `avc1` entry whose `avcC` says Constrained Baseline, level 3.0:
    /// codecs `avc1.42E01E`), then an `mdat` with a position-dependent pattern (for range checks). What
    /// commit's box inspection needs, and no more.
    public static func mp4(
        size: Int = 4096, seed: UInt8 = 0, durationMs: UInt32 = 10_000, width: UInt16 = 640, height: UInt16 = 360
    ) -> [UInt8] {
        let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8))
        // mvhd v0 (ISO/IEC 14496-12 §8.2.2): flags, creation, modification, timescale, duration, rate, volume,
        // reserved, matrix, pre_defined, next_track_ID.
        var mvhd = [UInt8](repeating: 0, count: 100)
        put32(&mvhd, at: 12, 1000)
        put32(&mvhd, at: 16, durationMs)
        put32(&mvhd, at: 20, 0x0001_0000)
        put32(&mvhd, at: 96, 2)
        // tkhd v0 (§8.3.2): width and height as 16.16 fixed point at payload offsets 76 and 80.
        var tkhd = [UInt8](repeating: 0, count: 84)
        put32(&tkhd, at: 0, 3)  // flags: enabled, in movie
        put32(&tkhd, at: 12, 1)  // track_ID
        put32(&tkhd, at: 20, durationMs)
        put32(&tkhd, at: 76, UInt32(width) << 16)
        put32(&tkhd, at: 80, UInt32(height) << 16)
        // hdlr (§8.4.3): flags, pre_defined, handler_type, reserved, empty name.
        let hdlr = [UInt8](repeating: 0, count: 8) + Array("vide".utf8) + [UInt8](repeating: 0, count: 13)
        let trak = box("trak", box("tkhd", tkhd) + box("mdia", box("hdlr", hdlr) + avcSampleTable(width, height)))
        let moov = box("moov", box("mvhd", mvhd) + trak)
        let head = ftyp + moov
        let mdatPayload = max(0, size - head.count - 8)
        return head + box("mdat", pattern(count: mdatPayload, seed: seed))
    }

    /// An MP4 whose leading bytes are right (`ftyp`) but which has no `moov`: a cut-off recording.
    public static func mp4WithoutMovieBox(size: Int = 2048) -> [UInt8] {
        let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8))
        return ftyp + box("mdat", pattern(count: max(0, size - ftyp.count - 8), seed: 1))
    }

    /// A JPEG: SOI, an APP0/JFIF segment, then filler and EOI.
    public static func jpeg(size: Int = 1024, seed: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
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

    /// `minf/stbl/stsd` with one `avc1` VisualSampleEntry (ISO/IEC 14496-12 §12.1.3: reserved, data
    /// reference index 1, pre_defined, width, height, 72 dpi twice, frame count 1, an empty compressor
    /// name, depth 24, pre_defined -1) holding an `avcC` (ISO/IEC 14496-15 §5.3.3) without parameter sets.
    public static func avcSampleTable(_ width: UInt16, _ height: UInt16) -> [UInt8] {
        var entry = [UInt8](repeating: 0, count: 78)
        entry[7] = 1
        entry.replaceSubrange(
            24..<28, with: [UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF)])
        put32(&entry, at: 28, 0x0048_0000)
        put32(&entry, at: 32, 0x0048_0000)
        entry[41] = 1
        entry.replaceSubrange(74..<78, with: [0x00, 0x18, 0xFF, 0xFF])
        let avcC: [UInt8] = [1, 0x42, 0xE0, 0x1E, 0xFF, 0xE0, 0x00]
        let stsd = [0, 0, 0, 0] + bigEndian32(1) + box("avc1", entry + box("avcC", avcC))
        return box("minf", box("stbl", box("stsd", stsd)))
    }

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    private static func put32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        bytes.replaceSubrange(offset..<offset + 4, with: bigEndian32(value))
    }

    private static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}
