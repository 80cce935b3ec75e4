import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM on the built binary: readiness turns 503 at once, the listener closes after
/// `--drain-delay`, requests in flight finish, then the sweeper stops, and serve exits 0.
@Suite("Graceful shutdown", .serialized)
struct GracefulShutdownTests {
    func status(_ service: ServiceProcess, _ path: String) throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(try RawHTTPTarget(service.baseURL + path), readTimeoutSeconds: 5)
        defer { connection.disconnect() }
        try connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return try connection.readResponse()
    }

    func refusesConnections(_ service: ServiceProcess) -> Bool {
        guard let target = try? RawHTTPTarget(service.baseURL + "/healthz") else { return false }
        return (try? RawHTTPConnection(target, readTimeoutSeconds: 1)) == nil
    }

    @Test("SIGTERM: /readyz is 503 at once, the listener closes after the delay, an upload in flight completes, exit 0")
    func sigtermDrains() throws {
        let service = try ServiceProcess(arguments: ["--drain-delay", "2", "--shutdown-timeout", "20"])
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let movie = TestMedia.mp4()
        let issued = try api.issue(streamId: 42, movie: movie, thumbnail: TestMedia.jpeg(), token: token)
        #expect(try status(service, "/readyz").status == 200)

        // An upload whose head and first half are sent: admitted, in flight.
        let target = try RawHTTPTarget(issued.movieBodyUrl)
        let upload = try RawHTTPConnection(target, readTimeoutSeconds: 30)
        try upload.send(target.head("PUT", issued.movieHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        let half = movie.count / 2
        try upload.send(Array(movie[..<half]))

        service.send(signal: SIGTERM)
        #expect(eventually(within: 5) { (try? status(service, "/readyz").status) == 503 }, "readiness turns 503")
        let health = try status(service, "/healthz")
        #expect(health.status == 200, "the process still answers while draining")
        #expect(health["Connection"] == "close", "clients are asked to reconnect elsewhere")

        #expect(eventually(within: 10) { refusesConnections(service) }, "the listener closes after --drain-delay")
        #expect(service.exitStatus == nil, "still finishing the upload")
        try upload.send(Array(movie[half...]))
        #expect(try upload.readResponse().status == 200, "the upload in flight completes")
        #expect(service.waitForExit(timeout: 20) == 0)
        #expect(try storedObject(service, url: issued.movieBodyUrl) == movie)
    }

    @Test("SIGTERM while a sweep batch is deleting: the listener closes first, the sweeper stops after it, exit 0")
    func listenerClosesBeforeTheSweeperStops() throws {
        // An S3 endpoint whose deletes are held until the test lets them go: the sweeper's
        // batch is in progress for as long as the test wants.
        let deleteArrived = Mutex<ContinuousClock.Instant?>(nil)
        let release = Atomic(false)
        let store = try RawHTTPServer { request in
            let line = request.requestLine
            if line.hasPrefix("DELETE ") || (line.hasPrefix("POST ") && line.contains("delete")) {
                deleteArrived.withLock { $0 = $0 ?? .now }
                _ = eventually(within: 120) { release.load(ordering: .relaxed) }
                return .respond(RawHTTPServer.response(204, "No Content", headers: [], body: []))
            }
            return .respond(RawHTTPServer.response(200, "OK", headers: [], body: []))
        }
        defer {
            release.store(true, ordering: .relaxed)
            store.stop()
        }
        // A Redis of its own (also in the cluster run), so the garbage can be seeded where serve reads it.
        let redis = try RedisServerFixture()
        let service = try ServiceProcess(
            arguments: [
                "--redis", "unix://" + redis.socketPath, "--storage", "s3", "--endpoint", store.url, "--bucket", "held",
                "--addressing", "path", "--region", S3TestEndpoint.region, "--sweep-interval", "1", "--drain-delay",
                "0", "--shutdown-timeout", "20",
            ], environment: S3TestEndpoint.credentialEnvironment)
        // One garbage object, due: the next sweeper run sends its delete.
        let probe = RedisProbe(socketPath: redis.socketPath)
        let keys = RedisKeys()
        let key = ObjectKeys.movie(streamId: 5, uploadId: String(repeating: "e", count: 32), type: .mp4)
        try probe.perform(["ZADD", keys.garbage(5), "0", key])
        try probe.perform(["ZADD", keys.sweepQueue, "0", "5"])
        try #require(eventually(within: 30) { deleteArrived.withLock { $0 } != nil }, "the sweeper's delete arrives")

        service.send(signal: SIGTERM)
        #expect(
            eventually(within: 8) { refusesConnections(service) },
            "the listener closes while the sweeper's batch is still deleting")
        // The store client gives a delete 10 s: before that the batch cannot have ended, so the
        // listener did not wait for it.
        let held = try #require(deleteArrived.withLock { $0 }).duration(to: .now)
        #expect(held < .seconds(10), "the delete had been held \(held) when the listener was found closed")
        #expect(service.exitStatus == nil, "serve waits for the sweeper's batch")
        release.store(true, ordering: .relaxed)
        #expect(service.waitForExit(timeout: 30) == 0)
    }
}
