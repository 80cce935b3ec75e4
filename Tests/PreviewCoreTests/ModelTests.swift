import PreviewCore
import Testing

@Suite struct RedisKeysTests {
    @Test func perStreamKeysShareOneHashTag() {
        let keys = RedisKeys(prefix: "sp")
        for key in [
            keys.preview(42), keys.version(42), keys.likers(42), keys.upload(42, "u"), keys.garbage(42),
            keys.deleting(42), keys.deleteAttempts(42), keys.pendingUploads(42),
        ] {
            #expect(hashTag(key) == "s:42", "\(key)")
        }
        #expect(hashTag(keys.seen("alice")) == hashTag(keys.liked("alice")))
        #expect(hashTag(keys.live) == "feed")
        for key in [
            keys.sweepQueue, keys.sweepTouched, keys.sweepLease, keys.sweepFence, keys.sweepClaims, keys.legacyGarbage,
        ] {
            #expect(hashTag(key) == "gc", "\(key)")
        }
    }

    @Test func subjectsCannotBreakOutOfTheirHashTag() {
        let keys = RedisKeys()
        #expect(hashTag(keys.seen("a}b{c")) == "v:a%7Db%7Bc")
        #expect(keys.seen("a b") != keys.seen("a%20b"))
        #expect(keys.seen("x:y") == "sp:{v:x%3Ay}:seen")
    }

    /// The part of a key Redis Cluster hashes (the first `{...}` with content).
    private func hashTag(_ key: String) -> String? {
        guard let open = key.firstIndex(of: "{"), let close = key[open...].firstIndex(of: "}") else { return nil }
        return String(key[key.index(after: open)..<close])
    }
}

@Suite struct ObjectKeyTests {
    @Test func objectKeysNameTheirStreamAndUpload() throws {
        let upload = UploadID.make(randomBytes: Array(0..<16))
        #expect(upload == "000102030405060708090a0b0c0d0e0f")
        let key = ObjectKeys.movie(streamId: 42, uploadId: upload, type: .quickTime)
        #expect(key == "previews/42/\(upload)/movie.mov")
        let owner = try #require(ObjectKeys.owner(of: key))
        #expect(owner.streamId == 42 && owner.uploadId == upload)
        #expect(ObjectKeys.owner(of: "previews/x/\(upload)/movie.mp4") == nil)
        #expect(ObjectKeys.owner(of: "other/42/\(upload)/movie.mp4") == nil)
    }

    @Test func uploadIDsAre32LowercaseHexDigits() {
        #expect(UploadID.isValid(String(repeating: "a", count: 32)))
        #expect(!UploadID.isValid(String(repeating: "A", count: 32)))
        #expect(!UploadID.isValid(String(repeating: "a", count: 31)))
        #expect(!UploadID.isValid("../../../../etc/passwd/aaaaaaaaaa"))
    }

    @Test func objectPathsAreEncodedWithoutNormalising() {
        #expect(ObjectPath.encode("a b/./c~/ü") == "a%20b/./c~/%C3%BC")
    }
}

@Suite struct PreviewRecordTests {
    @Test func aRecordSurvivesItsRedisHash() throws {
        let record = PreviewRecord(
            streamId: 7, version: 3, uploadId: "u", movieKey: "m", thumbnailKey: "t", movieType: .mp4,
            thumbnailType: .png, movieBytes: 10, thumbnailBytes: 2, movieURL: "https://cdn/m", thumbnailURL: nil,
            updatedAt: 100, expiresAt: 700)
        var fields = Dictionary(uniqueKeysWithValues: record.fieldsWithoutVersion)
        fields[PreviewRecord.Field.version] = "3"
        #expect(PreviewRecord(streamId: 7, fields: fields) == record)
        fields[PreviewRecord.Field.movieType] = "video/avi"
        #expect(PreviewRecord(streamId: 7, fields: fields) == nil)
        #expect(PreviewRecord(streamId: 7, fields: [:]) == nil)
    }

    @Test func aPendingUploadSurvivesItsRedisHash() {
        let upload = PendingUpload(
            streamId: 1, uploadId: "u", movieKey: "m", thumbnailKey: "t",
            movie: .init(type: .mp4, declaredBytes: nil, maxBytes: 99),
            thumbnail: .init(type: .jpeg, declaredBytes: 5, maxBytes: 5),
            urlExpiresAt: 900, commitDeadline: 1200)
        let fields = Dictionary(uniqueKeysWithValues: upload.fields)
        #expect(PendingUpload(streamId: 1, uploadId: "u", fields: fields) == upload)
    }
}

@Suite struct StreamIDTests {
    @Test func streamIDsArePositiveDecimalInt64sWithoutLeadingZeros() {
        #expect(StreamID.parse("42") == 42)
        #expect(StreamID.parse("10") == 10)
        #expect(StreamID.parse("9223372036854775807") == Int64.max)
        for bad in [
            "", "0", "000", "-1", "+1", " 1", "1 ", "4x", "9223372036854775808", "00000000000000000001", "0042", "007",
            "01",
        ] {
            #expect(StreamID.parse(bad) == nil, "\(bad)")
        }
    }
}
