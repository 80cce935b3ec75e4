import Foundation
import PreviewTestSupport
import Testing

/// A `/metrics` scrape as the official Prometheus Python client's parser read it
/// (`scripts/metrics/parse_scrape.py`, in the venv `scripts/metrics/setup-venv.sh` makes).
struct PrometheusScrape: Decodable {
    struct Family: Decodable {
        var name: String
        var type: String
        var samples: [Sample]
    }

    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        /// nil for an infinite value.
        var value: Double?
    }

    var families: [Family]

    init(from decoder: any Decoder) throws {
        families = try [Family](from: decoder)
    }

    /// Parses `text` with the official parser; throws when the venv cannot be made or the text
    /// does not parse.
    static func parse(_ text: String) throws -> PrometheusScrape {
        let root = TestPaths.repositoryRoot
        try venvReady.get()
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-scrape")
        let file = folder + "/metrics.txt"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let parsed = try ProcessResult.run(
            [root + "/.build/metrics-venv/bin/python", root + "/scripts/metrics/parse_scrape.py", file], timeout: 60)
        guard parsed.status == 0 else {
            throw ServiceProcessError("the Prometheus parser refused the scrape:\n\(parsed.stderr.suffix(3000))")
        }
        return try JSONDecoder().decode(PrometheusScrape.self, from: Data(parsed.stdout.utf8))
    }

    /// The venv, made once per test run (a no-op when it is complete).
    private static let venvReady = Result<Void, any Error> {
        let setup = try ProcessResult.run(
            ["/bin/bash", TestPaths.repositoryRoot + "/scripts/metrics/setup-venv.sh"], timeout: 600)
        guard setup.status == 0 else {
            throw ServiceProcessError(
                "scripts/metrics/setup-venv.sh failed (\(setup.status)); the metrics tests need prometheus_client "
                    + "from PyPI:\n\(setup.stderr.suffix(3000))")
        }
    }

    func family(_ name: String) -> Family? { families.first { $0.name == name } }

    /// The value of the sample `name` whose labels include `labels`; nil when there is none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        families.lazy.flatMap(\.samples).first { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }?.value
    }

    /// Every sample called `name`.
    func samples(_ name: String) -> [Sample] {
        families.flatMap(\.samples).filter { $0.name == name }
    }
}
