import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct ServeRefreshOptionsTests {
    func refresh(_ arguments: [String], environment: [String: String] = [:]) throws -> Int64 {
        let parsed = try Command.parse(["serve"] + arguments, environment: environment).get()
        guard case .serve(let options) = parsed else { throw UsageError("not serve: \(parsed)") }
        return options.policy.previewRefresh
    }

    func usageError(_ arguments: [String]) -> UsageError? {
        if case .failure(let error) = Command.parse(["serve"] + arguments, environment: [:]) { return error }
        return nil
    }

    @Test func theRefreshTimeDefaultsToHalfThePreviewTTL() throws {
        #expect(try refresh([]) == 300)
        #expect(try refresh(["--preview-ttl", "90"]) == 45)
        #expect(try refresh(["--preview-ttl", "1"]) == 1, "at least a second")
    }

    @Test func aGivenRefreshTimeIsTakenFromTheFlagOrTheEnvironment() throws {
        #expect(try refresh(["--preview-refresh", "30"]) == 30)
        #expect(try refresh(["--preview-ttl", "60", "--preview-refresh", "59"]) == 59)
        #expect(try refresh([], environment: ["STREAMPREVIEW_PREVIEW_REFRESH": "20"]) == 20)
        #expect(try refresh(["--preview-refresh", "25"], environment: ["STREAMPREVIEW_PREVIEW_REFRESH": "20"]) == 25)
    }

    @Test(arguments: [
        ["--preview-refresh", "600"], ["--preview-refresh", "0"], ["--preview-refresh", "x"],
        ["--preview-ttl", "60", "--preview-refresh", "60"], ["--preview-ttl", "1", "--preview-refresh", "1"],
    ])
    func aRefreshTimeNotBelowTheTTLIsAUsageError(_ arguments: [String]) throws {
        let error = try #require(usageError(arguments), "accepted \(arguments)")
        #expect(error.message.contains("preview-refresh"))
    }
}
