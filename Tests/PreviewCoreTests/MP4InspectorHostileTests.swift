import PreviewCore
import Testing

/// Broken and hostile box structures end in `.invalid` with a reason, never a trap or a hang.
@Suite("MP4Inspector: hostile and truncated input")
struct MP4InspectorHostileTests {
    typealias B = MP4Build

    static func reason(_ file: [UInt8], limits: MP4Inspector.Limits = .init()) -> String? {
        MP4Run.reason(MP4Run.inspect(file, limits: limits).final)
    }

    static let movie = B.mvhd(timescale: 1000, duration: 2000)

    @Test(arguments: [
        ("a box smaller than its header", B.ftyp() + B.be32(7) + B.fourCC("mdat"), "less than its 8-byte header"),
        ("a zero-length box past the first", B.ftyp() + B.be32(4) + B.fourCC("free") + B.moov(movie), "less than"),
        ("a size past the end", B.ftyp() + B.be32(1_000_000) + B.fourCC("mdat") + [1, 2, 3], "only"),
        ("a 64-bit size below 16", B.ftyp() + B.be32(1) + B.fourCC("mdat") + B.be64(15), "less than its 16-byte"),
        ("a 64-bit size past Int64", B.ftyp() + B.be32(1) + B.fourCC("mdat") + B.be64(UInt64.max), "impossible"),
        ("a cut 64-bit size", B.ftyp() + B.be32(1) + B.fourCC("mdat") + [0, 0], "cut off"),
        ("a header cut by the end", B.ftyp() + [0, 0, 0], "cut off"),
        ("a uuid box without its extended type", B.ftyp() + B.be32(12) + B.fourCC("uuid") + [1, 2, 3, 4], "24-byte"),
        (
            "a box type that is not text", B.ftyp() + [0, 0, 0, 12, 0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4],
            "not a box type"
        ),
        ("text after ftyp", B.ftyp() + Array("this is not a box, just some words".utf8), "claims"),
        ("no moov", B.ftyp() + B.mdat(100), "no moov"),
        ("only ftyp", B.ftyp(), "no moov"),
        ("a moov without mvhd", B.ftyp() + B.moov(B.trak(handler: "vide", width: 1, height: 1)), "no mvhd"),
        ("an mvhd too short", B.ftyp() + B.moov(B.fullBox("mvhd", version: 0, [0, 0, 0, 1])), "too short"),
        (
            "an mvhd v1 too short", B.ftyp() + B.moov(B.fullBox("mvhd", version: 1, [UInt8](repeating: 0, count: 24))),
            "too short"
        ),
        ("an empty mvhd", B.ftyp() + B.moov(B.box("mvhd")), "empty"),
        (
            "a tkhd too short",
            B.ftyp() + B.moov(movie, B.box("trak", B.fullBox("tkhd", version: 0, [UInt8](repeating: 0, count: 70)))),
            "too short"
        ),
        (
            "an hdlr too short", B.ftyp() + B.moov(movie, B.box("trak", B.box("mdia", B.box("hdlr", [0, 0, 0, 0])))),
            "too short"
        ),
        ("a child past its parent", B.ftyp() + B.moov(movie, B.be32(100) + B.fourCC("trak")), "inside 'moov'"),
        (
            "a grandchild past its parent", B.ftyp() + B.moov(movie, B.box("trak", B.be32(9) + B.fourCC("tkhd"))),
            "inside 'trak'"
        ),
        ("non-zero trailing bytes in moov", B.ftyp() + B.moov(movie, [0, 0, 1]), "inside 'moov'"),
        ("a file of 7 bytes", [0, 0, 0, 7, 0x66, 0x74, 0x79], "too short"),
    ])
    func brokenStructureIsInvalidWithAReason(name: String, file: [UInt8], expected: String) {
        let reason = Self.reason(file)
        #expect(reason?.contains(expected) == true, "\(name): \(reason ?? "not invalid")")
    }

    @Test func aTotalSizeSmallerThanThePrefixBoundsTheWalk() {
        let file = B.clip(fastStart: true)
        #expect(MP4Run.reason(MP4Inspector.inspect(prefix: file, totalSize: 30)) != nil)
        #expect(MP4Run.reason(MP4Inspector.inspect(prefix: file, totalSize: -1)) != nil)
        #expect(MP4Run.reason(MP4Inspector.inspect(prefix: [], totalSize: 0)) != nil)
    }

    @Test func aMillionTinyBoxesStopAtTheBoxLimit() {
        let file = B.ftyp() + [UInt8]((0..<20_000).lazy.flatMap { _ in B.box("free") }) + B.moov(Self.movie)
        #expect(Self.reason(file)?.contains("more than 10000 boxes") == true)
        var limits = MP4Inspector.Limits()
        limits.maxBoxes = 30_000
        #expect(MP4Run.info(MP4Run.inspect(file, limits: limits).final)?.durationMs == 2000)
    }

    @Test func deeplyNestedContainersAreNotFollowed() {
        // moov inside moov inside ... : only mvhd/trak/mdia are descended, so this ends fast.
        var nested = B.mvhd(timescale: 1, duration: 1)
        for _ in 0..<2000 { nested = B.box(["moov", "trak", "mdia", "udta"][nested.count % 4], nested) }
        let file = B.ftyp() + B.moov(Self.movie, nested)
        #expect(MP4Run.info(MP4Run.inspect(file).final)?.durationMs == 2000)
    }

    @Test func aDepthLimitBelowTheNeededNestingIsReported() {
        var limits = MP4Inspector.Limits()
        limits.maxDepth = 2
        let file = B.clip(fastStart: true)
        #expect(Self.reason(file, limits: limits)?.contains("nested deeper") == true)
    }

    @Test func aSelfReferencingSizeCannotLoop() {
        // A size of 0 inside moov means "to the end of moov": the walk still moves forwards.
        let file = B.ftyp() + B.moov(Self.movie, B.openBox("trak", B.openBox("mdia", B.openBox("hdlr", []))))
        #expect(Self.reason(file)?.contains("hdlr") == true)
    }

    /// Mutates valid clips at random (bytes, sizes, truncation, prefix length) and checks the
    /// inspector's contract on every answer: no trap, requests inside the file and the cap.
    @Test func randomMutationsNeverTrapAndRequestsStayInBounds() {
        var random = SplitMix64(state: 0x4D50_345F_4655_5A5A)
        let seeds = [
            B.clip(fastStart: true), B.clip(fastStart: false, mdatBytes: 300),
            B.clip(fastStart: false, mdatBytes: 5000, mvhdVersion: 1),
            B.ftyp() + B.largeBox("mdat", [1, 2, 3])
                + B.openBox("moov", Self.movie + B.trak(handler: "vide", width: 9, height: 9)),
        ]
        var completed = 0
        for _ in 0..<20_000 {
            var file = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0..<Int(random.next() % 4) + 1 {
                let index = Int(random.next() % UInt64(file.count))
                switch random.next() % 4 {
                case 0: file[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: file[index] ^= 1 << UInt8(random.next() % 8)
                case 2:
                    let value = [UInt32(0), 1, 7, 8, 16, 0xFFFF_FFFF, UInt32(truncatingIfNeeded: random.next())][
                        Int(random.next() % 7)]
                    let at = min(index, file.count - 4)
                    file.replaceSubrange(at..<(at + 4), with: B.be32(value))
                default: file.removeLast(Int(random.next() % UInt64(file.count / 2 + 1)))
                }
                if file.count < 4 { break }
            }
            let prefixLength = Int(random.next() % UInt64(file.count + 1))
            let limits: MP4Inspector.Limits = {
                var limits = MP4Inspector.Limits()
                limits.maxMoovBytes = 1 + Int(random.next() % 6000)
                return limits
            }()
            let (first, final) = MP4Run.inspect(file, prefixLength: prefixLength, limits: limits)
            if case .needMore(let offset, let length) = first {
                #expect(
                    offset >= 0 && length > 0 && length <= limits.maxMoovBytes
                        && offset + Int64(length) <= Int64(file.count))
            }
            if case .needMore = final { Issue.record("the second inspect asked for more") }
            if case .complete = final { completed += 1 }
        }
        #expect(completed > 100, "the mutations should leave some clips readable")
    }
}
