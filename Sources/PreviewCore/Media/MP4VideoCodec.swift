/// The video codec of a clip, read from its first video track's sample description (`stsd`):
/// what a player needs to know before it loads the clip (`MediaSource.isTypeSupported`,
/// `canPlayType`), as the RFC 6381 `codecs` parameter.
public struct MP4VideoCodec: Sendable, Equatable {
    /// The codecs an operator can allow (`serve --allowed-codecs`), by name.
    public enum Family: String, Sendable, CaseIterable {
        case h264, hevc, av1, vp9
        /// Any other sample entry (`mp4v`, `mjpa`, ...): never allowed.
        case other

        /// The name people know the family by, for messages.
        public var displayName: String {
            switch self {
            case .h264: "H.264"
            case .hevc: "HEVC"
            case .av1: "AV1"
            case .vp9: "VP9"
            case .other: "another codec"
            }
        }
    }

    /// The sample entry's four-character code (`avc1`, `hvc1`, `av01`, ...).
    public var sampleEntry: String
    public var family: Family
    /// RFC 6381 (`avc1.42E01E`, `hvc1.1.6.L93.B0`, `av01.0.04M.08`, `vp09.00.10.08`); the bare
    /// sample entry for a family this reader does not describe further.
    public var codecs: String

    public init(sampleEntry: String, family: Family, codecs: String) {
        self.sampleEntry = sampleEntry
        self.family = family
        self.codecs = codecs
    }
}

/// What the first video track's sample description says, or why it says nothing.
public enum MP4SampleDescription: Sendable, Equatable {
    /// The clip has no video track (or none was read: a clip that is not MP4 or QuickTime).
    case noVideoTrack
    /// The video track's sample description is missing or cannot be read; the reason is for people.
    case unreadable(String)
    case video(MP4VideoCodec)
}

/// Reads `stsd` (ISO/IEC 14496-12 §8.5.2) and the codec configuration box of its first entry:
/// `avcC` (ISO/IEC 14496-15 §5.3.3), `hvcC` (§8.3.3), `av1C` (AV1 Codec ISO Media File Format
/// Binding §2.3) or `vpcC` (VP Codec ISO Media File Format Binding §2.2). The strings follow
/// RFC 6381 §3.3 for H.264, ISO/IEC 14496-15 Annex E for HEVC, and the AV1 and VP9 bindings'
/// `codecs` sections (the short forms: profile, level, tier and bit depth).
enum MP4SampleEntryReader {
    /// A VisualSampleEntry's fields before its child boxes: 6 reserved bytes, the data reference
    /// index, 16 bytes of pre_defined and reserved, width, height, resolutions, reserved,
    /// frame count, the 32-byte compressor name, depth and pre_defined.
    static let visualEntryFields: Int64 = 78

    static func read(stsd: MP4BoxHeader, in window: MP4ByteWindow, depth: Int, budget: inout MP4Budget)
        -> MP4SampleDescription
    {
        do throws(MP4Invalid) {
            // A full box: version and flags, then the entry count, then the entries.
            let entriesStart = stsd.payloadStart + 8
            guard stsd.end - stsd.payloadStart >= 8,
                let count = window.slice(at: stsd.payloadStart + 4, count: 4)?.uint32(at: 0)
            else { return .unreadable("the stsd box is too short for its entry count") }
            guard count > 0, entriesStart < stsd.end else { return .unreadable("the stsd box has no sample entry") }
            let entry = try MP4Movie.firstChild(from: entriesStart, to: stsd.end, of: stsd, in: window, budget: &budget)
            let name = FourCC.text(entry.type)
            let childrenStart = entry.payloadStart + visualEntryFields
            guard childrenStart <= entry.end else {
                return .unreadable("the \(name) sample entry is \(entry.end - entry.start) bytes, too short")
            }
            let children = try MP4Movie.children(
                from: childrenStart, to: entry.end, of: entry, in: window, depth: depth + 1, budget: &budget)
            func configuration(_ type: UInt32) throws(MP4Invalid) -> ArraySlice<UInt8>? {
                guard let box = children.first(where: { $0.type == type }) else { return nil }
                return try MP4Movie.payload(of: box, in: window)
            }
            let codec: MP4VideoCodec?
            switch entry.type {
            case FourCC.avc1, FourCC.avc3:
                codec = try configuration(FourCC.avcC).flatMap { avc(name, $0) }
            case FourCC.hvc1, FourCC.hev1:
                codec = try configuration(FourCC.hvcC).flatMap { hevc(name, $0) }
            case FourCC.av01:
                codec = try configuration(FourCC.av1C).flatMap { av1($0) }
            case FourCC.vp09:
                codec = try configuration(FourCC.vpcC).flatMap { vp9($0) }
            default:
                guard FourCC.isPrintable(entry.type) else {
                    return .unreadable("the first sample entry's type is not a four-character code")
                }
                return .video(MP4VideoCodec(sampleEntry: name, family: .other, codecs: name))
            }
            guard let codec else {
                return .unreadable("the \(name) sample entry has no readable codec configuration box")
            }
            return .video(codec)
        } catch {
            return .unreadable(error.reason)
        }
    }

    /// `avcC`: configurationVersion, then the profile, the constraint flags and the level,
    /// each one byte, written as six hex digits.
    static func avc(_ entry: String, _ config: ArraySlice<UInt8>) -> MP4VideoCodec? {
        guard config.count >= 4, let version = config.uint8(at: 0), version == 1 else { return nil }
        let digits = Hex.encode(config.dropFirst().prefix(3), uppercase: true)
        return MP4VideoCodec(sampleEntry: entry, family: .h264, codecs: "\(entry).\(digits)")
    }

    /// `hvcC`: the profile space (none, A, B or C) and profile, the 32 compatibility flags in
    /// reverse bit order as hex, the tier (L or H) and level, then the six constraint bytes up
    /// to the last one that is not zero.
    static func hevc(_ entry: String, _ config: ArraySlice<UInt8>) -> MP4VideoCodec? {
        guard config.count >= 13, let first = config.uint8(at: 1), let compatibility = config.uint32(at: 2),
            let level = config.uint8(at: 12)
        else { return nil }
        let space = ["", "A", "B", "C"][Int(first >> 6)]
        let tier = first & 0x20 == 0 ? "L" : "H"
        let flags = String(compatibility.bitReversed, radix: 16, uppercase: true)
        var parts = ["\(entry)", "\(space)\(first & 0x1F)", flags, "\(tier)\(level)"]
        let constraints = (6..<12).compactMap { config.uint8(at: $0) }
        if let last = constraints.lastIndex(where: { $0 != 0 }) {
            parts += constraints[...last].map { Hex.encode([$0], uppercase: true) }
        }
        return MP4VideoCodec(sampleEntry: entry, family: .hevc, codecs: parts.joined(separator: "."))
    }

    /// `av1C`: marker and version 1, then seq_profile and seq_level_idx_0, then the tier and
    /// the bit depth flags.
    static func av1(_ config: ArraySlice<UInt8>) -> MP4VideoCodec? {
        guard let marker = config.uint8(at: 0), marker == 0x81, let second = config.uint8(at: 1),
            let third = config.uint8(at: 2)
        else { return nil }
        let profile = second >> 5
        let level = second & 0x1F
        let tier = third & 0x80 == 0 ? "M" : "H"
        let depth = third & 0x40 == 0 ? 8 : (third & 0x20 == 0 ? 10 : 12)
        return MP4VideoCodec(
            sampleEntry: "av01", family: .av1,
            codecs: "av01.\(profile).\(decimal(level))\(tier).\(decimal(UInt8(depth)))")
    }

    /// `vpcC` version 1 (a full box): profile, level, then the bit depth in the high four bits.
    static func vp9(_ config: ArraySlice<UInt8>) -> MP4VideoCodec? {
        guard let version = config.uint8(at: 0), version == 1, let profile = config.uint8(at: 4),
            let level = config.uint8(at: 5), let packed = config.uint8(at: 6)
        else { return nil }
        return MP4VideoCodec(
            sampleEntry: "vp09", family: .vp9,
            codecs: "vp09.\(decimal(profile)).\(decimal(level)).\(decimal(packed >> 4))")
    }

    /// Two decimal digits.
    static func decimal(_ value: UInt8) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension UInt32 {
    /// The bits in the opposite order (bit 0 becomes bit 31).
    var bitReversed: UInt32 {
        var value = self
        var reversed: UInt32 = 0
        for _ in 0..<32 {
            reversed = reversed << 1 | value & 1
            value >>= 1
        }
        return reversed
    }
}
