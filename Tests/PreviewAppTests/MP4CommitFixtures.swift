import Foundation
import PreviewTestSupport

/// Small hand-built MP4s for app tests (ISO/IEC 14496-12 boxes): `ftyp`, then `moov` with an
/// `mvhd` and one H.264 video `trak` (`TestMedia.avcSampleTable`), and `mdat`, in either order.
enum MP4Clip {
    static func make(
        durationMs: UInt32 = 2000, width: UInt32 = 320, height: UInt32 = 240, fastStart: Bool = true,
        mdatBytes: Int = 16
    ) -> [UInt8] {
        let identity: [UInt8] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000].flatMap { be32($0) }
        let mvhd = fullBox(
            "mvhd",
            be32(0) + be32(0) + be32(1000) + be32(durationMs) + be32(0x0001_0000) + [1, 0]
                + [UInt8](repeating: 0, count: 10) + identity + [UInt8](repeating: 0, count: 24) + be32(2))
        let tkhd = fullBox(
            "tkhd",
            be32(0) + be32(0) + be32(1) + be32(0) + be32(durationMs) + [UInt8](repeating: 0, count: 16) + identity
                + be32(width << 16) + be32(height << 16))
        let hdlr = fullBox("hdlr", be32(0) + Array("vide".utf8) + [UInt8](repeating: 0, count: 13))
        let sampleTable = TestMedia.avcSampleTable(
            UInt16(truncatingIfNeeded: width), UInt16(truncatingIfNeeded: height))
        let moov = box("moov", mvhd + box("trak", tkhd + box("mdia", hdlr + sampleTable)))
        let ftyp = box("ftyp", Array("isom".utf8) + be32(0x200) + Array("isomiso2".utf8))
        let mdat = box("mdat", (0..<mdatBytes).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        return ftyp + (fastStart ? moov + mdat : mdat + moov)
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }
    static func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
    static func be32(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
