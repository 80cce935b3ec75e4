import PreviewCore
import Testing

/// The MP4 box walk on structures built in the test: what it reads, and when it asks for more.
@Suite("MP4Inspector: box structure")
struct MP4InspectorTests {
    typealias B = MP4Build

    @Test func aFastStartClipIsReadFromThePrefixAlone() {
        let file = B.clip(fastStart: true)
        let first = MP4Inspector.inspect(prefix: file, totalSize: Int64(file.count))
        #expect(
            first
                == .complete(
                    MP4Info(
                        durationMs: 2500, width: 640, height: 360, fastStart: true,
                        sampleDescription: MP4Build.noSampleTable)))
    }

    @Test func aClipWithMoovAfterMdatAsksForTheTailAndIsNotFastStart() throws {
        let file = B.clip(fastStart: false, mdatBytes: 100_000)
        let moovStart = B.ftyp().count + 8 + 100_000
        let (first, final) = MP4Run.inspect(file)
        #expect(first == .needMore(offset: Int64(moovStart), length: file.count - moovStart))
        #expect(
            final
                == .complete(
                    MP4Info(
                        durationMs: 2500, width: 640, height: 360, fastStart: false,
                        sampleDescription: MP4Build.noSampleTable)))
    }

    @Test func aClipWithMoovAfterMdatInsideThePrefixNeedsNoSecondRead() {
        let file = B.clip(fastStart: false, mdatBytes: 100)
        #expect(
            MP4Run.inspect(file).first
                == .complete(
                    MP4Info(
                        durationMs: 2500, width: 640, height: 360, fastStart: false,
                        sampleDescription: MP4Build.noSampleTable)))
    }

    @Test func aMoovThatStartsInThePrefixButEndsPastItIsAskedForExactly() {
        let file = B.clip(fastStart: true)
        let moovStart = B.ftyp().count
        let moovSize = file.count - moovStart - (8 + 1000)
        let (first, final) = MP4Run.inspect(file, prefixLength: moovStart + 20)
        #expect(first == .needMore(offset: Int64(moovStart), length: moovSize))
        #expect(MP4Run.info(final)?.fastStart == true)
        #expect(MP4Run.info(final)?.width == 640)
    }

    @Test func aMoovHeaderCutByThePrefixEndIsReadWithTheTail() {
        let file = B.clip(fastStart: false, mdatBytes: 5000)
        let moovStart = B.ftyp().count + 8 + 5000
        let (first, final) = MP4Run.inspect(file, prefixLength: moovStart + 3)
        #expect(first == .needMore(offset: Int64(moovStart), length: file.count - moovStart))
        #expect(MP4Run.info(final)?.durationMs == 2500)
    }

    @Test func mvhdVersion1AndTkhdVersion1With64BitTimesAreRead() {
        let file =
            B.ftyp()
            + B.moov(
                B.mvhd(version: 1, timescale: 90_000, duration: 0x1_0000_0000 + 45_000),
                B.trak(handler: "vide", width: 1920, height: 1080, tkhdVersion: 1))
            + B.mdat(10)
        // (2^32 + 45000) / 90000 s = 47722.358... s
        #expect(
            MP4Run.inspect(file).final
                == .complete(
                    MP4Info(
                        durationMs: 47_722_358, width: 1920, height: 1080, fastStart: true,
                        sampleDescription: MP4Build.noSampleTable)))
    }

    @Test(
        arguments: [
            (600, 1001, 1668), (1000, 1999, 1999), (3, 2, 666), (1, 0, 0), (48_000, 96_000, 2000),
            (UInt32.max, UInt64(UInt32.max) - 1, 999),
        ] as [(UInt32, UInt64, Int64)])
    func durationIsInMillisecondsRoundedDown(timescale: UInt32, duration: UInt64, expected: Int64) {
        let file = B.ftyp() + B.moov(B.mvhd(version: 1, timescale: timescale, duration: duration)) + B.mdat(4)
        #expect(MP4Run.info(MP4Run.inspect(file).final)?.durationMs == expected)
    }

    @Test func anAllOnesDurationOrAZeroTimescaleIsUnknown() {
        for mvhd in [
            B.mvhd(version: 0, timescale: 600, duration: 0xFFFF_FFFF),
            B.mvhd(version: 1, timescale: 600, duration: UInt64.max),
            B.mvhd(version: 0, timescale: 0, duration: 600),
        ] {
            let file = B.ftyp() + B.moov(mvhd, B.trak(handler: "vide", width: 8, height: 6)) + B.mdat(4)
            #expect(
                MP4Run.info(MP4Run.inspect(file).final)
                    == MP4Info(
                        durationMs: 0, width: 8, height: 6, fastStart: true, sampleDescription: MP4Build.noSampleTable))
        }
    }

    @Test func aDurationPastInt64MillisecondsIsInvalid() {
        let file = B.ftyp() + B.moov(B.mvhd(version: 1, timescale: 1, duration: UInt64.max - 1)) + B.mdat(4)
        #expect(MP4Run.reason(MP4Run.inspect(file).final)?.contains("out of range") == true)
    }

    @Test func theFirstVideoTrackGivesTheSizeWhateverComesBeforeOrAfterIt() {
        let file =
            B.ftyp()
            + B.moov(
                B.box("udta", B.box("name", [1, 2, 3])),
                B.trak(handler: "soun", width: 0, height: 0), B.trak(handler: "text", width: 100, height: 20),
                B.mvhd(timescale: 1000, duration: 2000), B.trak(handler: "vide", width: 320, height: 240),
                B.trak(handler: "vide", width: 1280, height: 720))
            + B.mdat(4)
        #expect(
            MP4Run.info(MP4Run.inspect(file).final)
                == MP4Info(
                    durationMs: 2000, width: 320, height: 240, fastStart: true,
                    sampleDescription: MP4Build.noSampleTable))
    }

    @Test func aClipWithoutAVideoTrackHasNoSize() {
        let file =
            B.ftyp() + B.moov(B.mvhd(timescale: 1000, duration: 2000), B.trak(handler: "soun", width: 0, height: 0))
            + B.mdat(4)
        #expect(
            MP4Run.info(MP4Run.inspect(file).final) == MP4Info(durationMs: 2000, width: 0, height: 0, fastStart: true))
    }

    @Test func fixedPointSizesAreRoundedDownToWholePixels() {
        let tkhd = B.tkhd(width: 320 << 16 | 0xFFFF, height: 240 << 16 | 0x8000)
        let trak = B.box("trak", tkhd + B.box("mdia", B.hdlr("vide")))
        let file = B.ftyp() + B.moov(B.mvhd(timescale: 1, duration: 1), trak) + B.mdat(4)
        #expect(MP4Run.info(MP4Run.inspect(file).final)?.width == 320)
        #expect(MP4Run.info(MP4Run.inspect(file).final)?.height == 240)
    }

    @Test func sixtyFourBitSizesAtTheTopLevelAndInsideMoovAreFollowed() {
        let trak = B.largeBox("trak", B.tkhd(width: 64 << 16, height: 48 << 16) + B.box("mdia", B.hdlr("vide")))
        let moov = B.largeBox("moov", B.mvhd(timescale: 10, duration: 15) + trak)
        let file = B.ftyp() + B.largeBox("mdat", [UInt8](repeating: 9, count: 70_000)) + B.largeBox("free") + moov
        let (first, final) = MP4Run.inspect(file)
        #expect(first == .needMore(offset: Int64(B.ftyp().count + 16 + 70_000), length: 16 + moov.count))
        #expect(
            final
                == .complete(
                    MP4Info(
                        durationMs: 1500, width: 64, height: 48, fastStart: false,
                        sampleDescription: MP4Build.noSampleTable)))
    }

    @Test func aSizeZeroMoovRunsToTheEndOfTheFile() {
        let body = B.mvhd(timescale: 1000, duration: 42) + B.trak(handler: "vide", width: 2, height: 2)
        let file = B.ftyp() + B.mdat(20) + B.openBox("moov", body)
        #expect(
            MP4Run.inspect(file).final
                == .complete(
                    MP4Info(
                        durationMs: 42, width: 2, height: 2, fastStart: false, sampleDescription: MP4Build.noSampleTable
                    )))
    }

    @Test func aSizeZeroMdatWithoutMoovIsAnUnfinishedRecording() {
        let file = B.ftyp() + B.openBox("mdat", [UInt8](repeating: 0, count: 100))
        #expect(MP4Run.reason(MP4Run.inspect(file).final)?.contains("no moov") == true)
    }

    @Test func uuidAndOtherTopLevelBoxesAreSkippedBySize() {
        let uuid = B.box("uuid", [UInt8](repeating: 0xAB, count: 16) + [1, 2, 3])
        let file =
            B.ftyp() + B.box("free", [0, 0]) + uuid + B.box("wide") + B.clip(fastStart: true).dropFirst(B.ftyp().count)
        #expect(MP4Run.info(MP4Run.inspect(file).final)?.fastStart == true)
    }

    @Test func aQuickTimeZeroTerminatorAtTheEndOfMoovIsTolerated() {
        let moov = B.box("moov", B.mvhd(timescale: 1, duration: 3) + [0, 0, 0, 0])
        let file = B.ftyp("qt  ") + moov + B.mdat(4)
        #expect(MP4Run.info(MP4Run.inspect(file).final)?.durationMs == 3000)
    }

    @Test func anMvhdCutRightAfterItsDurationIsEnough() {
        // 68 bytes: ftyp, moov { mvhd v0 up to timescale 1000, duration 2000 }, empty mdat.
        let file: [UInt8] =
            B.be32(24) + Array("ftypisom".utf8) + B.be32(0x200) + Array("isomiso2".utf8)
            + B.be32(36) + Array("moov".utf8) + B.be32(28) + Array("mvhd".utf8) + [UInt8](repeating: 0, count: 12)
            + B.be32(1000) + B.be32(2000) + B.be32(8) + Array("mdat".utf8)
        #expect(file.count == 68)
        #expect(MP4Run.inspect(file).first == .complete(MP4Info(durationMs: 2000, fastStart: true)))
    }

    @Test func aMoovLargerThanTheCapIsInvalidWithoutReadingIt() {
        var limits = MP4Inspector.Limits()
        limits.maxMoovBytes = 1000
        let file =
            B.ftyp() + B.mdat(10)
            + B.moov(B.mvhd(timescale: 1, duration: 1), B.box("free", [UInt8](repeating: 0, count: 2000)))
        #expect(MP4Run.reason(MP4Run.inspect(file, limits: limits).first)?.contains("moov box is") == true)
    }

    @Test func theSecondInspectNeverAsksForMore() {
        let file = B.clip(fastStart: false, mdatBytes: 100_000)
        let prefix = Array(file.prefix(64 * 1024))
        for (offset, more) in [
            (Int64(0), [UInt8]()), (70_000, [1, 2, 3]), (Int64(file.count - 5), Array(file.suffix(5))),
        ] {
            let answer = MP4Inspector.inspect(prefix: prefix, more: more, at: offset, totalSize: Int64(file.count))
            #expect(MP4Run.reason(answer)?.contains("not within the bytes read") == true, "\(answer)")
        }
    }

    @Test func aTailBeyondTheCapIsAskedForOnlyUpToTheCap() {
        var limits = MP4Inspector.Limits()
        limits.maxMoovBytes = 4096
        limits.prefixLength = 100
        let file =
            B.ftyp() + B.box("free", [UInt8](repeating: 0, count: 200)) + B.mdat(10_000) + B.clip(fastStart: true)
        let (first, final) = MP4Run.inspect(file, prefixLength: 100, limits: limits)
        #expect(first == .needMore(offset: Int64(B.ftyp().count + 208), length: 4096))
        #expect(MP4Run.reason(final)?.contains("not within the bytes read") == true)
    }
}

/// The clip fields in the preview hash, and hashes written before they existed.
@Suite("MP4Inspector: clip fields of PreviewRecord")
struct MP4InspectorRecordTests {
    static let record = PreviewRecord(
        streamId: 7, version: 2, uploadId: "u", movieKey: "m", thumbnailKey: "t", movieType: .mp4, thumbnailType: .jpeg,
        movieBytes: 10, thumbnailBytes: 5, updatedAt: 100, expiresAt: 700, durationMs: 2_040, width: 320, height: 240,
        fastStart: true)

    @Test func clipFieldsRoundTripThroughTheHash() {
        var fields = Dictionary(uniqueKeysWithValues: Self.record.fieldsWithoutVersion)
        #expect(fields["durationMs"] == "2040" && fields["width"] == "320" && fields["fastStart"] == "1")
        fields["version"] = "2"
        #expect(PreviewRecord(streamId: 7, fields: fields) == Self.record)
    }

    @Test func aHashWrittenBeforeTheClipFieldsReadsAsUnknown() {
        var fields = Dictionary(uniqueKeysWithValues: Self.record.fieldsWithoutVersion)
        fields["version"] = "2"
        for name in ["durationMs", "width", "height", "fastStart"] { fields[name] = nil }
        let old = PreviewRecord(streamId: 7, fields: fields)
        #expect(old?.durationMs == 0 && old?.width == 0 && old?.height == 0 && old?.fastStart == false)
    }
}
