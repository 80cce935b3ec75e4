import Foundation
import PreviewTestSupport
import StreamPreviewClient
import Synchronization
import Testing

/// A real `serve`, a streamer's token for stream 42 and a viewer's, and a clip and a still on disk,
/// for the `StreamPreviewClient` package's end-to-end suites.
struct ClientFixture {
    let service: ServiceProcess
    let streamer: String
    let viewer: String
    let folder: String
    let movie: [UInt8]
    let still: [UInt8]

    init(arguments: [String] = [], movieSize: Int = 1 << 20) throws {
        service = try ServiceProcess(arguments: arguments)
        streamer = try service.token(sub: "sam", role: "streamer", streams: [42])
        viewer = try service.token(sub: "ann", role: "viewer")
        folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-client")
        movie = TestMedia.mp4(size: movieSize, seed: 3)
        still = TestMedia.jpeg(size: 900, seed: 3)
        try Data(movie).write(to: clipURL)
        try Data(still).write(to: stillURL)
    }

    var clipURL: URL { URL(fileURLWithPath: folder + "/clip.mp4") }
    var stillURL: URL { URL(fileURLWithPath: folder + "/still.jpg") }

    /// A client of this server with `token` (nil: anonymous).
    func client(
        token: String?, server: String? = nil, retry: UploadRetryPolicy = UploadRetryPolicy(),
        encoding: APIEncoding = .json
    ) throws -> StreamPreviewClient {
        let url = try #require(URL(string: server ?? service.baseURL))
        return StreamPreviewClient(
            baseURL: url, token: token.map { value in { @Sendable in value } }, retry: retry, encoding: encoding)
    }

    func removeFolder() {
        try? FileManager.default.removeItem(atPath: folder)  // best effort
    }
}

/// What a test collects from the uploader's callback.
final class UploadEvents: Sendable {
    private let events = Mutex<[UploadEvent]>([])

    var all: [UploadEvent] { events.withLock { $0 } }

    func record(_ event: UploadEvent) { events.withLock { $0.append(event) } }

    /// The bytes reported sent for `file`, in order.
    func progress(_ file: UploadFile) -> [Int64] {
        all.compactMap { event in
            if case .progress(file, let sent, _) = event { return sent }
            return nil
        }
    }
}

/// Runs `body`, cancelled and failed if it has not finished within `seconds`: a deadline for
/// waiting on events (generous: the machine is shared), never a measurement.
func withDeadline<T: Sendable>(
    seconds: Int = 120, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let value = try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds) * 1_000_000_000)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
    return try #require(value, "not done within \(seconds) s", sourceLocation: sourceLocation)
}
