import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The end-to-end tests' replica mode itself (`ServiceProcess(replicas:)`, what `STREAMPREVIEW_TEST_REPLICAS`
/// turns on for every suite in scripts/test-replicas.sh): nginx really spreads the requests over both `serve`
/// processes, which share the test clock and sign URLs for the load balancer.
@Suite("Two replicas behind nginx")
struct LoadBalancerTests {
    /// `host:port` of a `http://host:port` URL.
    func authority(_ url: String) -> String { String(url.dropFirst("http://".count)) }

    @Test("Requests through nginx are answered by both replicas in turn, and each replica logged its share")
    func requestsReachBothReplicas() throws {
        let service = try ServiceProcess(replicas: 2)
        let api = try APIClient(service)
        try #require(service.replicaURLs.count == 2)
        #expect(!service.replicaURLs.contains(service.baseURL), "tests talk to nginx, not to a replica")
        var served: [String] = []
        for index in 0..<6 {
            let reply = try api.send("GET", "/healthz", headers: [("X-Request-Id", "lb-probe-\(index)")])
            #expect(reply.status == 200)
            served.append(try #require(reply.headers[LoadBalancerProcess.upstreamHeader]))
            #expect(reply.headers["X-Request-Id"] == "lb-probe-\(index)", "nginx passes the request ID both ways")
        }
        #expect(Set(served) == Set(service.replicaURLs.map(authority)), "served by: \(served)")
        #expect(zip(served, served.dropFirst()).allSatisfy { $0 != $1 }, "round-robin alternates: \(served)")
        // Both replicas append to the one stderr log: the six request IDs are all there.
        let logged = eventually(within: 10) {
            let log = (try? String(contentsOfFile: service.stderrPath, encoding: .utf8)) ?? ""
            return (0..<6).allSatisfy { log.contains("lb-probe-\($0)") }
        }
        #expect(logged, "every request is in the shared stderr log")
    }

    @Test("Both replicas read the one test clock and sign URLs for nginx: an upload issued through one expires on both")
    func replicasShareTheClockAndThePublicURL() throws {
        let service = try ServiceProcess(arguments: ["--upload-url-ttl", "60"], testClock: true, replicas: 2)
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let movie = TestMedia.mp4()
        let issued = try api.issue(streamId: 42, movie: movie, thumbnail: TestMedia.jpeg(), token: token)
        #expect(issued.movieBodyUrl.hasPrefix(service.baseURL + "/"), "signed for nginx: \(issued.movieBodyUrl)")
        try service.shiftClock(by: 120)
        // Straight to each replica, with the Host the URL was signed for (SigV4 signs it).
        let path = String(issued.movieBodyUrl.dropFirst(service.baseURL.count))
        let headers = issued.movieHeaders.merging(["Host": authority(service.baseURL)]) { $1 }
        for replica in service.replicaURLs {
            expectError(try api.put(replica + path, headers: headers, body: movie), status: 403, code: "url_expired")
        }
    }
}
