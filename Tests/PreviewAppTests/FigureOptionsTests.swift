import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `--rank-by`, `--no-stats` and their combinations as serve parses them.
@Suite("Figure options")
struct FigureOptionsTests {
    private func settings(_ arguments: [String], environment: [String: String] = [:]) throws -> FigureSettings {
        let parsed = try OptionParser.parse(arguments, environment: environment, specs: ServeOptions.specs)
        return try ServeOptions.parse(parsed).figures.settings
    }

    @Test(
        "--rank-by: likes by default, opens when asked (flag or environment), nothing else, and opens only with the figures on"
    )
    func rankBy() throws {
        #expect(try settings([]).ranking == .likes)
        #expect(try settings(["--rank-by", "opens"]).ranking == .opens)
        #expect(try settings([], environment: ["STREAMPREVIEW_RANK_BY": "opens"]).ranking == .opens)
        #expect(try settings(["--rank-by", "likes", "--no-stats"]).ranking == .likes)
        #expect(throws: UsageError("--rank-by must be likes or opens, not 'views'")) {
            try settings(["--rank-by", "views"])
        }
        #expect(throws: UsageError("--rank-by opens needs the figures it ranks by: it cannot go with --no-stats")) {
            try settings(["--rank-by", "opens", "--no-stats"])
        }
    }
}
