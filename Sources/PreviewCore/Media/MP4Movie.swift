/// What the `moov` box says about the clip.
struct MP4MovieSummary: Sendable, Equatable {
    var durationMs: Int64 = 0
    var width: Int32 = 0
    var height: Int32 = 0
    var sampleDescription = MP4SampleDescription.noVideoTrack
}

/// The work allowance of one inspection: every box header read counts against it.
struct MP4Budget: Sendable {
    let maxBoxes: Int
    let maxDepth: Int
    private(set) var boxesRead = 0

    init(maxBoxes: Int, maxDepth: Int) {
        self.maxBoxes = maxBoxes
        self.maxDepth = maxDepth
    }

    mutating func spend(at offset: Int64) throws(MP4Invalid) {
        guard boxesRead < maxBoxes else {
            throw MP4Invalid("more than \(maxBoxes) boxes (stopped at offset \(offset))")
        }
        boxesRead += 1
    }
}

/// Why a clip's boxes cannot be read; the message is for people.
struct MP4Invalid: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Reads `moov` (ISO/IEC 14496-12 §8.2.1) once all of its bytes are in the window: `mvhd` for
/// the duration, and the first `trak` whose `mdia/hdlr` handler is `vide` for the size and,
/// from its `mdia/minf/stbl/stsd`, the codec.
///
/// Only `moov`, `trak`, `mdia`, `minf`, `stbl`, `stsd` and its first entry are descended into,
/// so nesting is seven levels deep by construction; every other box (`udta`, `meta`, `edts`,
/// ...) is skipped by its size.
enum MP4Movie {
    static func read(_ moov: MP4BoxHeader, in window: MP4ByteWindow, budget: inout MP4Budget) throws(MP4Invalid)
        -> MP4MovieSummary
    {
        var summary = MP4MovieSummary()
        var sawHeader = false
        var sawVideo = false
        for child in try children(of: moov, in: window, depth: 1, budget: &budget) {
            switch child.type {
            case FourCC.mvhd where !sawHeader:
                sawHeader = true
                summary.durationMs = try durationMs(mvhd: payload(of: child, in: window))
            case FourCC.trak where !sawVideo:
                if let track = try videoTrack(trak: child, in: window, budget: &budget) {
                    sawVideo = true
                    (summary.width, summary.height) = track.size
                    summary.sampleDescription = track.sampleDescription
                }
            default:
                continue
            }
        }
        guard sawHeader else { throw MP4Invalid("the moov box has no mvhd (movie header) box") }
        return summary
    }

    /// The width and height of a track if it is a video track (`hdlr` type `vide`) with a
    /// `tkhd`, and its sample description; nil for other tracks. The `tkhd` matrix (rotation) is
    /// not applied: the size is the track's, as stored, so a portrait clip recorded rotated
    /// reports landscape numbers.
    static func videoTrack(trak: MP4BoxHeader, in window: MP4ByteWindow, budget: inout MP4Budget) throws(MP4Invalid)
        -> (size: (Int32, Int32), sampleDescription: MP4SampleDescription)?
    {
        var size: (Int32, Int32)?
        var handler: UInt32?
        var sampleDescription = MP4SampleDescription.unreadable("the video track has no stsd (sample description) box")
        for child in try children(of: trak, in: window, depth: 2, budget: &budget) {
            switch child.type {
            case FourCC.tkhd where size == nil:
                size = try dimensions(tkhd: payload(of: child, in: window))
            case FourCC.mdia where handler == nil:
                let media = try children(of: child, in: window, depth: 3, budget: &budget)
                if let hdlr = media.first(where: { $0.type == FourCC.hdlr }) {
                    handler = try handlerType(hdlr: payload(of: hdlr, in: window))
                }
                guard handler == FourCC.vide else { continue }
                if let stsd = try descend(
                    from: media, through: [FourCC.minf, FourCC.stbl, FourCC.stsd], depth: 4,
                    in: window, budget: &budget)
                {
                    sampleDescription = MP4SampleEntryReader.read(stsd: stsd, in: window, depth: 6, budget: &budget)
                }
            default:
                continue
            }
        }
        guard handler == FourCC.vide, let size else { return nil }
        return (size, sampleDescription)
    }

    /// The box at the end of `path`, looked up from `boxes` one level at a time (the first of
    /// each type); nil when a box on the way is missing.
    static func descend(
        from boxes: [MP4BoxHeader], through path: [UInt32], depth: Int, in window: MP4ByteWindow,
        budget: inout MP4Budget
    ) throws(MP4Invalid) -> MP4BoxHeader? {
        var level = boxes
        var found: MP4BoxHeader?
        for (step, type) in path.enumerated() {
            guard let box = level.first(where: { $0.type == type }) else { return nil }
            found = box
            if step < path.count - 1 { level = try children(of: box, in: window, depth: depth + step, budget: &budget) }
        }
        return found
    }

    /// The boxes directly inside `parent`, in order. A few trailing zero bytes (fewer than a
    /// header; QuickTime writers end some containers with a 32-bit zero) are tolerated.
    static func children(of parent: MP4BoxHeader, in window: MP4ByteWindow, depth: Int, budget: inout MP4Budget)
        throws(MP4Invalid) -> [MP4BoxHeader]
    {
        try children(from: parent.payloadStart, to: parent.end, of: parent, in: window, depth: depth, budget: &budget)
    }

    /// The boxes from `start` to `end` inside `parent`: its payload, or what follows the fields
    /// of a box that has both (a sample entry, `stsd`).
    static func children(
        from start: Int64, to end: Int64, of parent: MP4BoxHeader, in window: MP4ByteWindow, depth: Int,
        budget: inout MP4Budget
    ) throws(MP4Invalid) -> [MP4BoxHeader] {
        guard depth <= budget.maxDepth else { throw MP4Invalid("boxes nested deeper than \(budget.maxDepth) levels") }
        var found: [MP4BoxHeader] = []
        var offset = start
        while offset < end {
            if end - offset < 8, let rest = window.slice(at: offset, count: end - offset), rest.allSatisfy({ $0 == 0 })
            {
                break
            }
            found.append(try box(at: offset, end: end, of: parent, in: window, budget: &budget))
            offset = found[found.count - 1].end
        }
        return found
    }

    /// The first box from `start` inside `parent` (an `stsd`'s first entry).
    static func firstChild(
        from start: Int64, to end: Int64, of parent: MP4BoxHeader, in window: MP4ByteWindow, budget: inout MP4Budget
    ) throws(MP4Invalid) -> MP4BoxHeader {
        try box(at: start, end: end, of: parent, in: window, budget: &budget)
    }

    private static func box(
        at offset: Int64, end: Int64, of parent: MP4BoxHeader, in window: MP4ByteWindow, budget: inout MP4Budget
    ) throws(MP4Invalid) -> MP4BoxHeader {
        try budget.spend(at: offset)
        switch Result(catching: { () throws(MP4HeaderProblem) in
            try MP4BoxHeader.read(in: window, at: offset, limit: end)
        }) {
        case .success(let header):
            return header
        case .failure(.unavailable):
            throw MP4Invalid("the '\(FourCC.text(parent.type))' box at offset \(parent.start) was not read whole")
        case .failure(.malformed(let reason)):
            throw MP4Invalid("inside '\(FourCC.text(parent.type))': \(reason)")
        }
    }

    static func payload(of box: MP4BoxHeader, in window: MP4ByteWindow) throws(MP4Invalid) -> ArraySlice<UInt8> {
        guard let bytes = window.slice(at: box.payloadStart, count: box.end - box.payloadStart) else {
            throw MP4Invalid("the '\(FourCC.text(box.type))' box at offset \(box.start) was not read whole")
        }
        return bytes
    }

    /// `mvhd` (§8.2.2), a full box: version 0 has 32-bit times and duration, version 1 64-bit;
    /// both a 32-bit timescale (units per second). Milliseconds rounded down; 0 when unknown
    /// (timescale 0, duration all ones as the spec defines, or a version this code predates).
    static func durationMs(mvhd bytes: ArraySlice<UInt8>) throws(MP4Invalid) -> Int64 {
        guard let version = bytes.uint8(at: 0) else { throw MP4Invalid("the mvhd box is empty") }
        let timescale: UInt32
        let duration: UInt64
        switch version {
        case 0:
            guard let scale = bytes.uint32(at: 12), let units = bytes.uint32(at: 16) else {
                throw MP4Invalid("the mvhd box (version 0) is \(bytes.count) bytes long, too short")
            }
            guard units != UInt32.max else { return 0 }
            (timescale, duration) = (scale, UInt64(units))
        case 1:
            guard let scale = bytes.uint32(at: 20), let units = bytes.uint64(at: 24) else {
                throw MP4Invalid("the mvhd box (version 1) is \(bytes.count) bytes long, too short")
            }
            guard units != UInt64.max else { return 0 }
            (timescale, duration) = (scale, units)
        default:
            return 0
        }
        guard timescale > 0 else { return 0 }
        let scale = UInt64(timescale)
        let (whole, overflow) = (duration / scale).multipliedReportingOverflow(by: 1000)
        let fraction = duration % scale * 1000 / scale
        guard !overflow, whole <= UInt64(Int64.max) - fraction else {
            throw MP4Invalid("the mvhd duration (\(duration) / \(timescale) s) is out of range")
        }
        return Int64(whole + fraction)
    }

    /// `tkhd` (§8.3.2) width and height: 16.16 fixed point, whole pixels (rounded down).
    /// Version 0 puts them at payload offset 76, version 1 (64-bit times) at 88. Nil for a
    /// version this code predates.
    static func dimensions(tkhd bytes: ArraySlice<UInt8>) throws(MP4Invalid) -> (Int32, Int32)? {
        guard let version = bytes.uint8(at: 0) else { throw MP4Invalid("the tkhd box is empty") }
        let offset: Int
        switch version {
        case 0: offset = 76
        case 1: offset = 88
        default: return nil
        }
        guard let width = bytes.uint32(at: offset), let height = bytes.uint32(at: offset + 4) else {
            throw MP4Invalid("the tkhd box (version \(version)) is \(bytes.count) bytes long, too short")
        }
        return (Int32(width >> 16), Int32(height >> 16))
    }

    /// `hdlr` (§8.4.3): version/flags, `pre_defined`, then the handler type (`vide`, `soun`, ...).
    static func handlerType(hdlr bytes: ArraySlice<UInt8>) throws(MP4Invalid) -> UInt32 {
        guard let type = bytes.uint32(at: 8) else {
            throw MP4Invalid("the hdlr box is \(bytes.count) bytes long, too short")
        }
        return type
    }
}
