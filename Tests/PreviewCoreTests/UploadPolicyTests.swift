import PreviewCore
import Testing

@Suite struct UploadPolicyTests {
    let policy = UploadPolicy()

    @Test func anOriginalClientSendingOnlyTheStreamIDGetsTheDefaultTypesAndLimits() throws {
        let spec = try policy.validate(
            streamId: 42, movieBytes: 0, thumbnailBytes: 0, movieContentType: "", thumbnailContentType: ""
        ).get()
        #expect(spec.movie == .init(type: .mp4, declaredBytes: nil, maxBytes: 10 * 1024 * 1024))
        #expect(spec.thumbnail == .init(type: .jpeg, declaredBytes: nil, maxBytes: 1024 * 1024))
    }

    @Test func declaredSizesAndTypesAreKept() throws {
        let spec = try policy.validate(
            streamId: 1, movieBytes: 500, thumbnailBytes: 20, movieContentType: "Video/QuickTime; x=y",
            thumbnailContentType: "image/webp"
        ).get()
        #expect(spec.movie == .init(type: .quickTime, declaredBytes: 500, maxBytes: 500))
        #expect(spec.thumbnail == .init(type: .webp, declaredBytes: 20, maxBytes: 20))
    }

    struct BadRequest: Sendable, CustomTestStringConvertible {
        var stream: Int64 = 1
        var movie: Int64 = 1
        var thumbnail: Int64 = 1
        var movieType = "video/mp4"
        var thumbnailType = "image/jpeg"
        var field: String
        var testDescription: String { field }
    }

    static let badRequests: [BadRequest] = [
        BadRequest(stream: 0, field: "streamId"),
        BadRequest(stream: -5, field: "streamId"),
        BadRequest(movie: 10 * 1024 * 1024 + 1, field: "movieBytes"),
        BadRequest(thumbnail: 1024 * 1024 + 1, field: "thumbnailBytes"),
        BadRequest(movie: -1, field: "movieBytes"),
        BadRequest(movieType: "video/avi", field: "movieContentType"),
        BadRequest(movieType: "image/jpeg", field: "movieContentType"),
        BadRequest(thumbnailType: "image/gif", field: "thumbnailContentType"),
        BadRequest(thumbnailType: "video/mp4", field: "thumbnailContentType"),
    ]

    @Test(arguments: badRequests)
    func badRequestsAreRejectedNamingTheField(_ bad: BadRequest) {
        let result = policy.validate(
            streamId: bad.stream, movieBytes: bad.movie, thumbnailBytes: bad.thumbnail,
            movieContentType: bad.movieType, thumbnailContentType: bad.thumbnailType)
        guard case .failure(let error) = result else {
            Issue.record("accepted \(bad)")
            return
        }
        #expect(error.code == .invalidArgument)
        #expect(error.status == 400)
        #expect(error.target == bad.field)
    }
}

/// `declaredSizes`: S3 upload URLs can bind only an exact `Content-Length`, so with `.required` an
/// undeclared size is refused naming the field; `.optional` (GCS, local) bounds it by the limit.
@Suite struct UploadPolicyDeclaredSizesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var rule: UploadPolicy.DeclaredSizes
        var movie: Int64
        var thumbnail: Int64
        /// The refused field, or nil when accepted.
        var refused: String?
        var testDescription: String { "\(rule) movie=\(movie) thumbnail=\(thumbnail)" }
    }

    static let cases: [Case] = [
        Case(rule: .required, movie: 0, thumbnail: 20, refused: "movieBytes"),
        Case(rule: .required, movie: 500, thumbnail: 0, refused: "thumbnailBytes"),
        Case(rule: .required, movie: 0, thumbnail: 0, refused: "movieBytes"),
        Case(rule: .required, movie: 500, thumbnail: 20, refused: nil),
        Case(rule: .required, movie: 10 * 1024 * 1024 + 1, thumbnail: 20, refused: "movieBytes"),
        Case(rule: .optional, movie: 0, thumbnail: 0, refused: nil),
        Case(rule: .optional, movie: 500, thumbnail: 0, refused: nil),
    ]

    @Test(arguments: cases)
    func undeclaredSizesAreRefusedOnlyWhenTheBackendNeedsThem(_ item: Case) throws {
        var policy = UploadPolicy()
        policy.declaredSizes = item.rule
        let result = policy.validate(
            streamId: 7, movieBytes: item.movie, thumbnailBytes: item.thumbnail, movieContentType: "",
            thumbnailContentType: "")
        switch (result, item.refused) {
        case (.success(let spec), nil):
            #expect(spec.movie.maxBytes == (item.movie == 0 ? policy.maxMovieBytes : item.movie))
            #expect(spec.thumbnail.maxBytes == (item.thumbnail == 0 ? policy.maxThumbnailBytes : item.thumbnail))
        case (.failure(let error), let field?):
            #expect(error.code == .invalidArgument)
            #expect(error.status == 400)
            #expect(error.target == field)
        default:
            Issue.record("expected \(item.refused.map { "refusal of \($0)" } ?? "success"), got \(result)")
        }
    }

    @Test func declaredSizesAreOptionalByDefault() {
        #expect(UploadPolicy().declaredSizes == .optional)
    }
}

@Suite struct MediaTypeTests {
    @Test func leadingBytesIdentifyEachType() {
        let mp4: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 0, 0]
        #expect(MediaType.mp4.matches(mp4))
        #expect(MediaType.quickTime.matches([0, 0, 0, 0x14] + Array("ftypqt  ".utf8)))
        #expect(MediaType.jpeg.matches([0xFF, 0xD8, 0xFF, 0xE0]))
        #expect(MediaType.png.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]))
        #expect(MediaType.webp.matches(Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WEBPVP8 ".utf8)))
    }

    @Test func otherBytesDoNotMatch() {
        #expect(!MediaType.mp4.matches(Array("<html>ftyp".utf8)))
        #expect(!MediaType.mp4.matches([0, 0, 0]))
        #expect(!MediaType.jpeg.matches([0xFF, 0xD8]))
        #expect(!MediaType.png.matches(Array("GIF89a".utf8)))
        #expect(!MediaType.webp.matches(Array("RIFF1234WAVE".utf8)))
        #expect(!MediaType.jpeg.matches([]))
    }

    @Test func contentTypesParseWithoutParametersOrCase() {
        #expect(MediaType.parse("video/mp4") == .mp4)
        #expect(MediaType.parse(" IMAGE/PNG ; q=1") == .png)
        #expect(MediaType.parse("image/gif") == nil)
        #expect(MediaType.parse("") == nil)
    }
}
