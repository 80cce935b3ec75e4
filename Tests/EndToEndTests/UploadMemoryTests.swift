import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What uploads cost the server in memory, read from /proc/<pid>/status of the built binary
/// (memory is deterministic enough to bound; time is not asserted).
@Suite("Upload memory", .serialized)
struct UploadMemoryTests {
    static let tenMiB = 10 * 1024 * 1024

    @Test("200 concurrent unsigned 10 MiB PUTs raise the server's RSS by less than 16 MiB")
    func unsignedUploadsCostNoMemory() throws {
        let service = try ServiceProcess()
        let target = try RawHTTPTarget(service.baseURL + "/objects/previews/1/forged/movie.mp4")
        let headers = [("Content-Type", "video/mp4"), ("Content-Length", String(Self.tenMiB))]
        func requests(_ count: Int) -> [ConcurrentPuts.Request] {
            // Spread over four loopback addresses, below any per-address connection limit.
            (0..<count).map {
                ConcurrentPuts.Request(
                    target: target, headers: headers, body: PatternBody(length: Self.tenMiB, seed: UInt64($0)),
                    source: "127.0.0.\(1 + $0 % 4)")
            }
        }
        _ = try ConcurrentPuts.run(requests(8), timeout: 60)  // warm-up: first-use allocations
        let before = try ProcessMemory(pid: service.pid)
        var peak = before.residentKiB
        let outcomes = try ConcurrentPuts.run(requests(200), timeout: 120) {
            peak = max(peak, (try? ProcessMemory(pid: service.pid).residentKiB) ?? peak)
        }
        let after = try ProcessMemory(pid: service.pid)
        let refused = outcomes.filter { $0.status == 403 }.count
        let reset = outcomes.filter { $0.status == nil }.count
        let sentMiB = outcomes.map(\.bodyBytesSent).reduce(0, +) / (1024 * 1024)
        print(
            "unsigned PUTs: RSS before \(before.residentKiB) KiB, after \(after.residentKiB) KiB,"
                + " highest sampled \(peak) KiB; \(refused) of 200 read a 403, \(reset) a reset;"
                + " \(sentMiB) MiB of body sent in all")
        #expect(outcomes.count == 200)
        #expect(!outcomes.contains { ($0.status ?? 0) / 100 == 2 }, "no unsigned PUT may succeed")
        #expect(after.residentKiB - before.residentKiB < 16 * 1024)
        #expect(peak - before.residentKiB < 16 * 1024)
        #expect(try storedFiles(service).isEmpty)
    }

    @Test("50 concurrent valid 10 MiB uploads keep the server's RSS under 128 MiB and are stored byte for byte")
    func validUploadsStream() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let streams = Array(Int64(1)...50)
        let token = try service.token(sub: "sam", role: "streamer", streams: streams)
        var requests: [ConcurrentPuts.Request] = []
        var keys: [String] = []
        for stream in streams {
            let reply = try api.requestUpload(
                StreamPreviewPostRequest(
                    streamId: stream, movieBytes: Int64(Self.tenMiB), thumbnailBytes: 1000,
                    movieContentType: "video/mp4", thumbnailContentType: "image/jpeg"),
                token: token)
            try #require(reply.status == 200, "post: \(reply.text)")
            let issued = try reply.json(StreamPreviewPostResponse.self)
            let target = try RawHTTPTarget(issued.movieBodyUrl)
            requests.append(
                ConcurrentPuts.Request(
                    target: target, headers: issued.movieHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    body: PatternBody(length: Self.tenMiB, seed: UInt64(stream))))
            keys.append(try #require(objectKey(ofURL: issued.movieBodyUrl)))
        }
        let before = try ProcessMemory(pid: service.pid)
        var peak = before.residentKiB
        let outcomes = try ConcurrentPuts.run(requests, timeout: 300) {
            peak = max(peak, (try? ProcessMemory(pid: service.pid).residentKiB) ?? peak)
        }
        let after = try ProcessMemory(pid: service.pid)
        print(
            "valid uploads: RSS before \(before.residentKiB) KiB, after \(after.residentKiB) KiB,"
                + " highest sampled \(peak) KiB, peak (VmHWM) \(after.peakKiB) KiB")
        #expect(outcomes.map(\.status) == Array(repeating: 200, count: 50))
        #expect(max(after.peakKiB, peak) < 128 * 1024)
        for (key, request) in zip(keys, requests) {
            let stored = try #require(try storedObject(service, key: key), "\(key) is stored")
            #expect(stored == request.body.bytes(), "\(key) byte for byte")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: service.dataDirectory + "/objects/tmp").isEmpty)
    }

    private func storedFiles(_ service: ServiceProcess) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: service.dataDirectory + "/objects/data")
    }
}
