import Foundation
import PreviewCore
import Testing

/// Builds ISO BMFF boxes byte by byte (ISO/IEC 14496-12 §4.2 and the boxes of §8), so each
/// test states the exact structure it feeds the inspector.
enum MP4Build {
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)] }
    static func be32(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    static func be64(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    static func fourCC(_ type: String) -> [UInt8] {
        precondition(type.utf8.count == 4)
        return Array(type.utf8)
    }

    /// A box with a 32-bit size.
    static func box(_ type: String, _ payload: [UInt8] = []) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + fourCC(type) + payload
    }

    /// A box with `size == 1` and a 64-bit `largesize`.
    static func largeBox(_ type: String, _ payload: [UInt8] = []) -> [UInt8] {
        be32(1) + fourCC(type) + be64(UInt64(16 + payload.count)) + payload
    }

    /// A box with `size == 0`: it runs to the end of the file (or of its parent).
    static func openBox(_ type: String, _ payload: [UInt8] = []) -> [UInt8] {
        be32(0) + fourCC(type) + payload
    }

    /// A full box: version, 24-bit flags, payload.
    static func fullBox(_ type: String, version: UInt8, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + Array(be32(flags).dropFirst()) + payload)
    }

    static func ftyp(_ brand: String = "isom") -> [UInt8] {
        box("ftyp", fourCC(brand) + be32(0x200) + fourCC(brand) + fourCC("mp41"))
    }

    static let identity: [UInt8] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000].flatMap { be32($0) }

    /// `mvhd` §8.2.2: version 0 (32-bit times) or 1 (64-bit), then rate, volume, matrix, next track.
    static func mvhd(version: UInt8 = 0, timescale: UInt32, duration: UInt64) -> [UInt8] {
        let times: [UInt8] =
            version == 1
            ? be64(1) + be64(2) + be32(timescale) + be64(duration)
            : be32(1) + be32(2) + be32(timescale) + be32(UInt32(truncatingIfNeeded: duration))
        let rest =
            be32(0x0001_0000) + be16(0x0100) + [UInt8](repeating: 0, count: 10) + identity
            + [UInt8](repeating: 0, count: 24) + be32(3)
        return fullBox("mvhd", version: version, times + rest)
    }

    /// `tkhd` §8.3.2 with width and height as 16.16 fixed point.
    static func tkhd(version: UInt8 = 0, trackID: UInt32 = 1, width: UInt32, height: UInt32) -> [UInt8] {
        let times: [UInt8] =
            version == 1
            ? be64(1) + be64(2) + be32(trackID) + be32(0) + be64(1234)
            : be32(1) + be32(2) + be32(trackID) + be32(0) + be32(1234)
        let rest =
            [UInt8](repeating: 0, count: 8) + be16(0) + be16(0) + be16(0) + be16(0) + identity
            + be32(width) + be32(height)
        return fullBox("tkhd", version: version, flags: 3, times + rest)
    }

    /// `hdlr` §8.4.3: pre_defined, handler type, three reserved words, an empty name.
    static func hdlr(_ handler: String) -> [UInt8] {
        fullBox("hdlr", version: 0, be32(0) + fourCC(handler) + [UInt8](repeating: 0, count: 12) + [0])
    }

    static func mdhd() -> [UInt8] {
        fullBox("mdhd", version: 0, be32(1) + be32(2) + be32(1000) + be32(2000) + be16(0x55C4) + be16(0))
    }

    /// A track: `tkhd`, an `edts` to skip, and `mdia` with `mdhd` and `hdlr`.
    static func trak(handler: String, width: UInt32, height: UInt32, tkhdVersion: UInt8 = 0) -> [UInt8] {
        box(
            "trak",
            tkhd(version: tkhdVersion, width: width << 16, height: height << 16)
                + box("edts", box("elst", [0, 0, 0, 0]))
                + box("mdia", mdhd() + hdlr(handler) + box("minf", box("vmhd", [0, 0, 0, 1]))))
    }

    static func moov(_ children: [UInt8]...) -> [UInt8] { box("moov", children.flatMap { $0 }) }

    /// What the inspector says of a video `trak` built here: its `minf` has no sample table, so
    /// the codec is unknown (a clip commit refuses; these tests are about the other fields).
    static let noSampleTable = MP4SampleDescription.unreadable("the video track has no stsd (sample description) box")

    /// `mdat` of `count` bytes of a pattern.
    static func mdat(_ count: Int) -> [UInt8] { box("mdat", (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131) }) }

    /// A 2.5 s 640x360 clip: moov (audio track first, then video) before or after mdat.
    static func clip(fastStart: Bool, mdatBytes: Int = 1000, mvhdVersion: UInt8 = 0) -> [UInt8] {
        let moov = moov(
            mvhd(version: mvhdVersion, timescale: 600, duration: 1500),
            trak(handler: "soun", width: 0, height: 0),
            trak(handler: "vide", width: 640, height: 360))
        return ftyp() + (fastStart ? moov + mdat(mdatBytes) : mdat(mdatBytes) + moov)
    }
}

/// Runs the inspector as the app does: the first `prefixLength` bytes, then the one read it asks for.
enum MP4Run {
    static func inspect(_ file: [UInt8], prefixLength: Int = 64 * 1024, limits: MP4Inspector.Limits = .init())
        -> (first: MP4Inspection, final: MP4Inspection)
    {
        let prefix = Array(file.prefix(prefixLength))
        let first = MP4Inspector.inspect(prefix: prefix, totalSize: Int64(file.count), limits: limits)
        guard case .needMore(let offset, let length) = first else { return (first, first) }
        let start = Int(offset)
        let more = Array(file[start..<min(file.count, start + length)])
        let final = MP4Inspector.inspect(
            prefix: prefix, more: more, at: offset, totalSize: Int64(file.count), limits: limits)
        return (first, final)
    }

    static func info(_ inspection: MP4Inspection) -> MP4Info? {
        if case .complete(let info) = inspection { return info }
        return nil
    }

    static func reason(_ inspection: MP4Inspection) -> String? {
        if case .invalid(let reason) = inspection { return reason }
        return nil
    }
}
