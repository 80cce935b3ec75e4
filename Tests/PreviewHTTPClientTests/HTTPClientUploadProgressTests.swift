import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewHTTPClient

/// The upload-progress callback: libcurl's transfer-info callback passes on the body bytes sent,
/// from 0 to the whole body, for files and for bytes in memory.
@Suite struct HTTPClientUploadProgressTests {
    @Test func aFilePutReportsFromZeroToItsSizeNeverGoingBack() throws {
        let server = try echoServer()
        defer { server.stop() }
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-progress")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(body).write(to: URL(fileURLWithPath: folder + "/clip.mp4"))
        let reports = Mutex<[(sent: Int64, total: Int64)]>([])
        var request = HTTPClientRequest(method: "PUT", url: server.url + "/o", body: .file(path: folder + "/clip.mp4"))
        request.uploadProgress = { sent, total in reports.withLock { $0.append((sent, total)) } }
        let response = try HTTPClient().send(request)
        #expect(response.status == 200)
        #expect(server.requests.first?.body == body)
        let seen = reports.withLock { $0 }
        #expect(seen.first?.sent == 0 && seen.last?.sent == Int64(body.count), "\(seen.map(\.sent))")
        #expect(seen.allSatisfy { $0.total == Int64(body.count) })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.sent < $1.sent }, "only changes are reported")
        #expect(seen.count > 2, "a 3 MiB body is reported on its way, not only at the end")
    }

    @Test func bytesInMemoryAreReportedTooAndARequestWithoutTheCallbackHasNone() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try HTTPClient()
        let reports = Mutex<[Int64]>([])
        var request = HTTPClientRequest(method: "POST", url: server.url + "/p", body: .bytes(Array("hello".utf8)))
        request.uploadProgress = { sent, _ in reports.withLock { $0.append(sent) } }
        #expect(try client.send(request).status == 200)
        #expect(reports.withLock { $0 } == [0, 5])
        // The same handle, reused: the callback of the last request is gone.
        let plain = HTTPClientRequest(method: "POST", url: server.url + "/p", body: .bytes(Array("again".utf8)))
        #expect(try client.send(plain).status == 200)
        #expect(reports.withLock { $0 } == [0, 5])
        #expect(server.requests.map(\.body) == [Array("hello".utf8), Array("again".utf8)])
    }
}
