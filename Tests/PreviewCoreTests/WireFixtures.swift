import Foundation
import PreviewCore
import PreviewProcess
import PreviewTestSupport
import Testing

/// Sample values with edge cases, shared by the wire tests.
enum WireSamples {
    static let postRequest = StreamPreviewPostRequest(
        streamId: Int64.max, movieBytes: -1, thumbnailBytes: Int64.min, movieContentType: "video/mp4")
    static let postResponse = StreamPreviewPostResponse(
        movieBodyUrl: "https://s3.example.com/bucket/m/42.mp4?X-Amz-Signature=ab%2Fcd&x=1",
        movieThumbnailBodyUrl: "https://s3.example.com/bucket/t/42.jpg",
        uploadId: "ü🎬-日本", expiresAt: 1_700_000_000,
        movieHeaders: ["x-amz-meta-é": "ü", "Content-Type": "video/mp4", "Content-Length": "1048576", "x-empty": ""],
        thumbnailHeaders: ["Content-Type": "image/jpeg"])
    static let commitRequest = StreamPreviewCommitRequest(streamId: -42, uploadId: "")
    static let feedItem = FeedItem(
        streamId: 7, movieUrl: "https://cdn.example.com/m/7.mp4", thumbnailUrl: "", likes: Int64.max, liked: true,
        seen: false, previewVersion: 3, updatedAt: -1, expiresAt: Int64.min, durationMs: 2_000, width: Int32.min,
        height: Int32.max, fastStart: true)
    static let feedResponse = FeedResponse(items: [
        feedItem, FeedItem(), FeedItem(streamId: 1, movieUrl: "🎥", likes: 1, seen: true, width: 320, height: -1),
    ])
    static let likeResponse = LikeResponse(likes: 0, liked: true)
    static let errorResponse = ErrorResponse(
        code: "invalid_argument", message: "line1\nline2 \"quoted\" \\ é 日本", target: "streamId",
        requestId: "req-0001")
}

/// Runs Debian's `protoc` (package protobuf-compiler) against proto/stream_preview.proto.
/// Tests that need it fail, never skip, when it is missing.
enum Protoc {
    static func executable() throws -> String {
        if let protoc = ChildProcess.executable(named: "protoc") { return protoc }
        Issue.record("protoc not found on PATH: install Debian package protobuf-compiler")
        throw ProtocFailure(message: "protoc not found")
    }

    /// `protoc --encode=streampreview.v1.<message>`: text format in, binary out.
    static func encode(_ message: String, text: String) throws -> [UInt8] {
        try run(["--encode=streampreview.v1.\(message)"], input: Array(text.utf8))
    }

    /// `protoc --decode=streampreview.v1.<message>`: binary in, text format out.
    static func decode(_ message: String, bytes: [UInt8]) throws -> String {
        String(decoding: try run(["--decode=streampreview.v1.\(message)"], input: bytes), as: UTF8.self)
    }

    /// `protoc --descriptor_set_out`: proto/stream_preview.proto as protoc reads it, a serialized
    /// `google.protobuf.FileDescriptorSet`.
    static func descriptorSet() throws -> [UInt8] {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-protoc")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/stream_preview.desc"
        _ = try run(["--descriptor_set_out=\(path)"], input: [])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func run(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let proto = TestPaths.repositoryRoot + "/proto"
        let result = try ProcessResult.run(
            [try executable()] + arguments + ["--proto_path=\(proto)", "stream_preview.proto"], timeout: 60,
            input: input)
        guard result.status == 0 else {
            throw ProtocFailure(message: "protoc \(arguments) exited \(result.status): \(result.stderr)")
        }
        return result.stdoutBytes
    }
}

struct ProtocFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// SplitMix64: a tiny deterministic generator so fuzz runs are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Array where Element == UInt8 {
    /// Hex for readable failure messages.
    var hex: String { map { Hex.encode([$0]) }.joined(separator: " ") }
}
