/// One ISO base media file format box header (ISO/IEC 14496-12 §4.2): where the box starts,
/// how long its header is, where it ends, and its four-character type.
struct MP4BoxHeader: Sendable, Equatable {
    /// Absolute offset of the first byte of the box (its size field).
    var start: Int64
    /// 8, 16 with a 64-bit `largesize`, plus 16 for a `uuid` box's extended type.
    var headerLength: Int
    /// Absolute offset just past the box.
    var end: Int64
    /// The box type as its four bytes, big-endian in a `UInt32` (`FourCC("moov")`).
    var type: UInt32

    var payloadStart: Int64 { start + Int64(headerLength) }
    var size: Int64 { end - start }
}

/// A four-character code as a big-endian `UInt32`, so box types compare as integers.
enum FourCC {
    static func make(_ text: StaticString) -> UInt32 {
        precondition(text.utf8CodeUnitCount == 4, "a four-character code has four bytes")
        return text.withUTF8Buffer { bytes in bytes.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    static let ftyp = make("ftyp")
    static let moov = make("moov")
    static let mdat = make("mdat")
    static let uuid = make("uuid")
    static let mvhd = make("mvhd")
    static let trak = make("trak")
    static let tkhd = make("tkhd")
    static let mdia = make("mdia")
    static let hdlr = make("hdlr")
    static let vide = make("vide")
    static let minf = make("minf")
    static let stbl = make("stbl")
    static let stsd = make("stsd")
    static let avc1 = make("avc1")
    static let avc3 = make("avc3")
    static let avcC = make("avcC")
    static let hvc1 = make("hvc1")
    static let hev1 = make("hev1")
    static let hvcC = make("hvcC")
    static let av01 = make("av01")
    static let av1C = make("av1C")
    static let vp09 = make("vp09")
    static let vpcC = make("vpcC")

    /// `moov` for messages; bytes outside printable ASCII as `\xNN`.
    static func text(_ code: UInt32) -> String {
        var text = ""
        for shift in [24, 16, 8, 0] {
            let byte = UInt8(truncatingIfNeeded: code >> UInt32(shift))
            if byte >= 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + Hex.encode([byte], uppercase: true)
            }
        }
        return text
    }

    /// Whether all four bytes are printable ASCII, as every registered top-level box type is.
    static func isPrintable(_ code: UInt32) -> Bool {
        (0..<4).allSatisfy { index in
            let byte = UInt8(truncatingIfNeeded: code >> UInt32(8 * index))
            return byte >= 0x20 && byte < 0x7F
        }
    }
}

/// Known bytes of a file that is read in pieces: the prefix, and at most one more piece.
/// Every read is bounds-checked and answers nil rather than trapping.
struct MP4ByteWindow: Sendable {
    struct Piece: Sendable {
        var start: Int64
        var bytes: [UInt8]
        var end: Int64 { start + Int64(bytes.count) }
    }

    var pieces: [Piece]

    /// The bytes `offset..<offset + count` when one piece holds all of them.
    func slice(at offset: Int64, count: Int64) -> ArraySlice<UInt8>? {
        guard offset >= 0, count >= 0 else { return nil }
        for piece in pieces where piece.start <= offset && count <= piece.end - offset {
            let lower = Int(offset - piece.start)
            return piece.bytes[lower..<(lower + Int(count))]
        }
        return nil
    }
}

/// Big-endian integers out of a slice, by offset from the slice's start; nil past its end.
extension ArraySlice where Element == UInt8 {
    func uint32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        let base = startIndex + offset
        return self[base..<(base + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func uint64(at offset: Int) -> UInt64? {
        guard offset >= 0, offset <= count - 8 else { return nil }
        let base = startIndex + offset
        return self[base..<(base + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    func uint8(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        return self[startIndex + offset]
    }
}

/// Why a box header cannot be read.
enum MP4HeaderProblem: Error, Equatable {
    /// The header's bytes are not (all) known yet.
    case unavailable
    /// The header is known and impossible: the message says why.
    case malformed(String)
}

extension MP4BoxHeader {
    /// Reads the header of the box at `offset` inside a parent that ends at `limit`.
    ///
    /// ISO/IEC 14496-12 §4.2: a 32-bit size counting the whole box; `size == 1` means a 64-bit
    /// `largesize` follows the type; `size == 0` means the box runs to the end of its parent
    /// (the file, for a top-level box); a `uuid` box has a 16-byte extended type after that.
    static func read(in window: MP4ByteWindow, at offset: Int64, limit: Int64) throws(MP4HeaderProblem) -> MP4BoxHeader
    {
        guard limit - offset >= 8 else {
            throw .malformed("a box header at offset \(offset) is cut off by the end after \(limit - offset) bytes")
        }
        guard let basic = window.slice(at: offset, count: 8), let size32 = basic.uint32(at: 0),
            let type = basic.uint32(at: 4)
        else { throw .unavailable }
        var headerLength: Int64 = 8
        let size: Int64
        switch size32 {
        case 0:
            size = limit - offset
        case 1:
            guard limit - offset >= 16 else {
                throw .malformed("the 64-bit size of the '\(FourCC.text(type))' box at offset \(offset) is cut off")
            }
            guard let large = window.slice(at: offset + 8, count: 8)?.uint64(at: 0) else { throw .unavailable }
            guard large <= UInt64(Int64.max) else {
                throw .malformed("the '\(FourCC.text(type))' box at offset \(offset) has an impossible 64-bit size")
            }
            headerLength = 16
            size = Int64(large)
        default:
            size = Int64(size32)
        }
        if type == FourCC.uuid { headerLength += 16 }
        guard size >= headerLength else {
            throw .malformed(
                "the '\(FourCC.text(type))' box at offset \(offset) claims \(size) bytes, less than its \(headerLength)-byte header"
            )
        }
        guard size <= limit - offset else {
            throw .malformed(
                "the '\(FourCC.text(type))' box at offset \(offset) claims \(size) bytes but only \(limit - offset) remain"
            )
        }
        return MP4BoxHeader(start: offset, headerLength: Int(headerLength), end: offset + size, type: type)
    }
}
