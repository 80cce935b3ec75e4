// S3 servers for tests: moto_server started on a free loopback port (plumbing only: moto does not
// check signatures), and LocalStack's S3 (verifies SigV4), started by scripts/test-s3.sh in a network
// namespace with only loopback and handed to the tests as STREAMPREVIEW_TEST_LOCALSTACK.
import Foundation
import PreviewCore
public import PreviewHTTPClient
import PreviewRedis
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An S3-compatible endpoint on loopback and the unsigned requests tests use to set it up and to look
/// inside it (create a bucket, list the stored keys). Both servers accept unsigned requests as anonymous.
public struct S3TestEndpoint: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let url: String
    /// Credentials the servers accept (moto: any; LocalStack: `test`/`test`, account 000000000000).
    public static let accessKeyId = "test"
    public static let secretAccessKey = "test"
    public static let region = "us-east-1"

    public init(url: String) { self.url = url }

    /// `AWS_*` variables for a `streampreview serve --storage s3` child.
    public static var credentialEnvironment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyId, "AWS_SECRET_ACCESS_KEY": secretAccessKey, "AWS_DEFAULT_REGION": region]
    }

    /// A bucket name no other test uses (lower case, DNS-safe).
    public static func uniqueBucket(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Creates `bucket` with an unsigned `PUT /bucket` (setup only; says nothing about signing).
    public func createBucket(_ bucket: String) throws {
        let response = try send("PUT", "/\(bucket)")
        guard response.status == 200 else {
            throw ServiceProcessError(
                "creating bucket \(bucket) at \(url) answered \(response.status): "
                    + String(decoding: response.body, as: UTF8.self))
        }
    }

    /// Stores an object with an unsigned PUT (seeding a test; path encoded by `encodedKey`).
    public func putObject(bucket: String, encodedKey: String, bytes: [UInt8], contentType: String) throws {
        let response = try send(
            "PUT", "/\(bucket)/\(encodedKey)", headers: [("Content-Type", contentType)], body: bytes)
        guard response.status == 200 else {
            throw ServiceProcessError("seeding \(bucket)/\(encodedKey) answered \(response.status)")
        }
    }

    /// The keys the server itself has stored in `bucket` (ListObjectsV2), decoded from its XML: what
    /// really arrived, to compare byte for byte with the keys we signed.
    public func listKeys(bucket: String) throws -> [String] {
        let response = try send("GET", "/\(bucket)?list-type=2&max-keys=1000")
        guard response.status == 200 else {
            throw ServiceProcessError("listing \(bucket) answered \(response.status)")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        var keys: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<Key>"),
            let close = rest.range(of: "</Key>", range: open.upperBound..<rest.endIndex)
        {
            keys.append(Self.decodeXML(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return keys
    }

    public func send(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> HTTPClientResponse {
        var request = HTTPClientRequest(method: method, url: url + path, headers: HTTPHeaders(headers))
        if let body { request.body = .bytes(body) }
        request.timeoutSeconds = 15
        return try HTTPClient().send(request)
    }

    static func decodeXML(_ text: String) -> String {
        var result = text
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&#13;", "\r")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result.replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// LocalStack's S3, started outside the test process by scripts/test-s3.sh.
public enum LocalStackS3 {
    public static let variable = "STREAMPREVIEW_TEST_LOCALSTACK"

    /// The endpoint from STREAMPREVIEW_TEST_LOCALSTACK; throws (so the test fails, never skips) when unset.
    public static func endpoint() throws -> S3TestEndpoint {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            throw ServiceProcessError(
                "\(variable) is not set: the LocalStack suites run only through scripts/test-s3.sh, which starts "
                    + "LocalStack (signature checks on) in a loopback-only network namespace. Plain `swift test` "
                    + "must skip them with `--skip LocalStack`.")
        }
        return S3TestEndpoint(url: url)
    }
}

/// `moto_server` from `.build/s3-test-venvs/moto` (made by scripts/s3-test-servers/setup-venvs.sh,
/// run here when missing) on a free 127.0.0.1 port. One per test process, shared: each test uses
/// its own bucket. Killed with the test process (setpriv --pdeathsig KILL).
///
/// moto serves objects but never checks a signature: tests against it prove plumbing (HEAD, Range,
/// DELETE, keys over the wire), not that our signatures are valid. It does honour S3 conditional
/// writes: a PUT with `If-None-Match: *` on an existing key gets 412 `PreconditionFailed`.
public final class MotoServer: Sendable {
    public let endpoint: S3TestEndpoint
    private let child: ChildProcess

    private static let shared = Mutex<Result<MotoServer, ServiceProcessError>?>(nil)

    /// The process-wide moto_server, started on first use.
    public static func start() throws -> MotoServer {
        try shared.withLock { state in
            if let state { return try state.get() }
            let started: Result<MotoServer, ServiceProcessError>
            do { started = .success(try MotoServer()) } catch let error as ServiceProcessError {
                started = .failure(error)
            } catch { started = .failure(ServiceProcessError("\(error)")) }
            state = started
            return try started.get()
        }
    }

    private init() throws {
        let venv = try S3TestVenvs.ensure("moto")
        let port = try freeLoopbackPort()
        let logs = try ServiceProcess.makeTemporaryDirectory(prefix: "sp-moto")
        child = try ChildProcess.spawn(
            arguments: [venv + "/bin/moto_server", "-H", "127.0.0.1", "-p", String(port)],
            stdoutPath: logs + "/stdout.log", stderrPath: logs + "/stderr.log", diesWithParent: true)
        endpoint = S3TestEndpoint(url: "http://127.0.0.1:\(port)")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? endpoint.send("GET", "/"))?.status == 200 { return }
            if let status = child.termination?.code {
                let log = (try? String(contentsOfFile: logs + "/stderr.log", encoding: .utf8)) ?? ""
                throw ServiceProcessError("moto_server exited (\(status)):\n\(log.suffix(2000))")
            }
            usleep(50_000)
        }
        child.send(SIGKILL)
        throw ServiceProcessError("moto_server did not answer on port \(port) within 30 s (logs in \(logs))")
    }
}

/// The Python environments of the S3 test servers.
public enum S3TestVenvs {
    /// The repository root (this file is Sources/PreviewTestSupport/S3TestServer.swift).
    public static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    private static let setupLock = Mutex(())

    /// The venv folder of `name` (`moto`, `localstack`), running setup-venvs.sh when it is not ready.
    public static func ensure(_ name: String) throws -> String {
        let base = ProcessInfo.processInfo.environment["S3_TEST_VENVS"] ?? repositoryRoot + "/.build/s3-test-venvs"
        let venv = base + "/" + name
        return try setupLock.withLock { _ in
            if FileManager.default.fileExists(atPath: venv + "/.pins") { return venv }
            let script = repositoryRoot + "/scripts/s3-test-servers/setup-venvs.sh"
            let logs = try ServiceProcess.makeTemporaryDirectory(prefix: "sp-venv")
            let child = try ChildProcess.spawn(
                arguments: ["/bin/bash", script, name], stdoutPath: logs + "/stdout.log",
                stderrPath: logs + "/stderr.log")
            guard child.waitForExit(timeout: 900), child.termination == .exited(status: 0) else {
                child.send(SIGKILL)
                let log = (try? String(contentsOfFile: logs + "/stderr.log", encoding: .utf8)) ?? ""
                let status = child.termination?.code ?? -1
                throw ServiceProcessError("\(script) \(name) failed (\(status)):\n\(log.suffix(2000))")
            }
            return venv
        }
    }
}
