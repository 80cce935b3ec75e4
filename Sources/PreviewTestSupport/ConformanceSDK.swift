// The official-SDK side of the presign conformance suite: the venv under .build, the Python
// script that prints SDK URLs, and runs of the binary with a clean environment. Linux only.
import Foundation

/// One URL an SDK (or, for GOOG4-HMAC, the reference implementation) produced, with the
/// `streampreview` command line and credential variables that must print the same URL.
public struct ConformanceCase: Decodable, Sendable {
    public var id: String
    /// `botocore`, `google-cloud-storage` or `reference-goog4-hmac`.
    public var oracle: String
    public var args: [String]
    public var env: [String: String]
    public var url: String
    /// `exact`, or `params`: the same query parameters (signature included) in another order.
    public var compare: String
}

/// What `scripts/conformance/sdk_urls.py` printed.
public struct ConformanceMatrix: Decodable, Sendable {
    public var sdks: [String: String]
    public var at: String
    public var cases: [ConformanceCase]
    /// Seconds spent creating or checking the venv, and running the SDKs.
    public var setupSeconds: Double = 0
    public var sdkSeconds: Double = 0

    enum CodingKeys: String, CodingKey { case sdks, at, cases }
}

public enum ConformanceSDK {
    /// Creates `<root>/.build/conformance-venv` with `scripts/conformance/setup-venv.sh` (a no-op
    /// when it is complete), then runs the SDK script. Throws, never skips, when the SDKs cannot
    /// be installed or run.
    public static func matrix(repositoryRoot root: String) throws -> ConformanceMatrix {
        let started = Date()
        let setup = try ProcessResult.run(["/bin/bash", root + "/scripts/conformance/setup-venv.sh"], timeout: 900)
        guard setup.status == 0 else {
            throw ServiceProcessError(
                "scripts/conformance/setup-venv.sh failed (\(setup.status)); the conformance suite needs the "
                    + "official SDKs from PyPI:\n\(setup.stderr.suffix(3000))")
        }
        let setupSeconds = Date().timeIntervalSince(started)
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-conformance")
        let python = root + "/.build/conformance-venv/bin/python"
        let sdk = try ProcessResult.run(
            [python, root + "/scripts/conformance/sdk_urls.py", "--key-file", folder + "/service-account.json"],
            timeout: 300)
        guard sdk.status == 0 else {
            throw ServiceProcessError("sdk_urls.py failed (\(sdk.status)):\n\(sdk.stderr.suffix(3000))")
        }
        var matrix = try JSONDecoder().decode(ConformanceMatrix.self, from: Data(sdk.stdout.utf8))
        matrix.setupSeconds = setupSeconds
        matrix.sdkSeconds = Date().timeIntervalSince(started) - setupSeconds
        return matrix
    }

    /// Runs the `streampreview` binary with only `PATH` and `environment` set (no inherited
    /// `STREAMPREVIEW_*` or `AWS_*` variables).
    public static func runBinary(_ arguments: [String], environment: [String: String]) throws -> ProcessResult {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let variables = (["PATH": path].merging(environment) { $1 }).map { "\($0.key)=\($0.value)" }.sorted()
        let binary = try ServiceProcess.binaryPath()
        return try ProcessResult.run(["/usr/bin/env", "-i"] + variables + [binary] + arguments, timeout: 60)
    }

    /// True when `ours` is `expected` with the query parameters in another order.
    public static func sameParameters(_ ours: String, _ expected: String) -> Bool {
        func split(_ url: String) -> (String, [Substring]) {
            guard let mark = url.firstIndex(of: "?") else { return (url, []) }
            return (String(url[..<mark]), url[url.index(after: mark)...].split(separator: "&").sorted())
        }
        let (a, b) = (split(ours), split(expected))
        return a.0 == b.0 && a.1 == b.1
    }
}
