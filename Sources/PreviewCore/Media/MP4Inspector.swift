/// What commit learns from a clip's boxes; zeros mean unknown.
public struct MP4Info: Sendable, Equatable {
    /// `mvhd` duration in milliseconds, rounded down.
    public var durationMs: Int64
    /// The first video track's `tkhd` width and height in whole pixels, as stored (the
    /// rotation matrix is not applied); 0 when the clip has no video track.
    public var width: Int32
    public var height: Int32
    /// Whether `moov` comes before any `mdat`, so a player can start before the whole file
    /// has arrived (what `ffmpeg -movflags +faststart` arranges).
    public var fastStart: Bool
    /// The first video track's codec, from its sample description.
    public var sampleDescription: MP4SampleDescription

    public init(
        durationMs: Int64 = 0, width: Int32 = 0, height: Int32 = 0, fastStart: Bool = false,
        sampleDescription: MP4SampleDescription = .noVideoTrack
    ) {
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.fastStart = fastStart
        self.sampleDescription = sampleDescription
    }

    /// The codec's RFC 6381 string; empty when no codec was read.
    public var codecs: String {
        if case .video(let codec) = sampleDescription { return codec.codecs }
        return ""
    }
}

/// The answer of `MP4Inspector`.
public enum MP4Inspection: Sendable, Equatable {
    /// The `moov` box was read.
    case complete(MP4Info)
    /// Read `length` bytes at `offset` (never more than `Limits.maxMoovBytes`) and call
    /// `inspect(prefix:more:at:totalSize:)` with them.
    case needMore(offset: Int64, length: Int)
    /// The boxes cannot be read as a movie; the reason is for people.
    case invalid(String)
}

/// Reads the box structure of an MP4 or QuickTime clip (ISO/IEC 14496-12, the ISO base media
/// file format) from its first bytes, plus at most one more ranged read: the `moov` box
/// (movie metadata) is usually either near the start (fast-start) or at the end of the file.
///
/// Pure and defensive: every size is checked against the bytes that exist before it is used,
/// boxes are only walked forwards (every box is at least 8 bytes), and work is capped by
/// `Limits`, so hostile input ends in `.invalid`, never a trap.
public enum MP4Inspector {
    public struct Limits: Sendable, Equatable {
        /// How many leading bytes a caller should read first.
        public var prefixLength = 64 * 1024
        /// The largest second read the inspector asks for, so the largest `moov` it reads.
        public var maxMoovBytes = 4 * 1024 * 1024
        /// Box headers read in all, top level and inside `moov`.
        public var maxBoxes = 10_000
        /// Container nesting below the top level (`moov/trak/mdia/minf/stbl/stsd/avc1/avcC`
        /// needs 7).
        public var maxDepth = 8

        public init() {}
    }

    /// Inspects the first bytes of a clip of `totalSize` bytes (the whole clip when it is
    /// shorter than `limits.prefixLength`).
    public static func inspect(prefix: [UInt8], totalSize: Int64, limits: Limits = Limits()) -> MP4Inspection {
        walk(
            MP4ByteWindow(pieces: [.init(start: 0, bytes: prefix)]), totalSize: totalSize, final: false, limits: limits)
    }

    /// Inspects again with the bytes a `.needMore(offset:length:)` asked for; never answers
    /// `.needMore`, so a caller reads at most twice.
    public static func inspect(
        prefix: [UInt8], more: [UInt8], at offset: Int64, totalSize: Int64, limits: Limits = Limits()
    ) -> MP4Inspection {
        let window = MP4ByteWindow(pieces: [.init(start: 0, bytes: prefix), .init(start: offset, bytes: more)])
        return walk(window, totalSize: totalSize, final: true, limits: limits)
    }

    /// The top-level walk: note whether an `mdat` comes first, read `moov` when all of it is
    /// known, otherwise say which bytes to read.
    static func walk(_ window: MP4ByteWindow, totalSize: Int64, final: Bool, limits: Limits) -> MP4Inspection {
        guard totalSize >= 8 else { return .invalid("the clip is \(totalSize) bytes long, too short for any box") }
        var budget = MP4Budget(maxBoxes: limits.maxBoxes, maxDepth: limits.maxDepth)
        var offset: Int64 = 0
        var sawMediaData = false
        do throws(MP4Invalid) {
            while offset < totalSize {
                try budget.spend(at: offset)
                let header: MP4BoxHeader
                switch Result(catching: { () throws(MP4HeaderProblem) in
                    try MP4BoxHeader.read(in: window, at: offset, limit: totalSize)
                }) {
                case .success(let read):
                    header = read
                case .failure(.unavailable):
                    let length = min(totalSize - offset, Int64(limits.maxMoovBytes))
                    guard !final else { return notReached(offset: offset, limits: limits) }
                    return .needMore(offset: offset, length: Int(length))
                case .failure(.malformed(let reason)):
                    return .invalid(reason)
                }
                guard FourCC.isPrintable(header.type) else {
                    return .invalid(
                        "no box at offset \(offset): its type '\(FourCC.text(header.type))' is not a box type")
                }
                if header.type == FourCC.moov {
                    guard header.size <= Int64(limits.maxMoovBytes) else {
                        return .invalid("the moov box is \(header.size) bytes; at most \(limits.maxMoovBytes) are read")
                    }
                    guard window.slice(at: header.start, count: header.size) != nil else {
                        guard !final else { return notReached(offset: offset, limits: limits) }
                        return .needMore(offset: header.start, length: Int(header.size))
                    }
                    let movie = try MP4Movie.read(header, in: window, budget: &budget)
                    return .complete(
                        MP4Info(
                            durationMs: movie.durationMs, width: movie.width, height: movie.height,
                            fastStart: !sawMediaData, sampleDescription: movie.sampleDescription))
                }
                if header.type == FourCC.mdat { sawMediaData = true }
                offset = header.end
            }
        } catch {
            return .invalid(error.reason)
        }
        return .invalid("the clip has no moov box (movie metadata): an unfinished or cut-off recording?")
    }

    private static func notReached(offset: Int64, limits: Limits) -> MP4Inspection {
        .invalid(
            "the moov box (movie metadata) is not within the bytes read: the first bytes and one more read "
                + "of at most \(limits.maxMoovBytes) bytes (stopped at offset \(offset))")
    }
}
