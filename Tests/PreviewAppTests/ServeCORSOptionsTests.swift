import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("serve's CORS origins come from --cors-origins, then STREAMPREVIEW_CORS_ORIGINS; none by default")
struct ServeCORSOptionsTests {
    func serveOptions(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeOptions {
        let parsed = try Command.parse(["serve"] + arguments, environment: environment).get()
        guard case .serve(let options) = parsed else { throw UsageError("not serve: \(parsed)") }
        return options
    }

    @Test("no origins by default: no CORS at all")
    func noneByDefault() throws {
        #expect(try serveOptions([]).cors == nil)
    }

    @Test("the environment sets the list and the flag overrides it")
    func environmentThenFlag() throws {
        let environment = ["STREAMPREVIEW_CORS_ORIGINS": "https://a.example,*"]
        #expect(
            try serveOptions([], environment: environment).cors
                == CORSPolicy(origins: ["https://a.example"], anyOriginReads: true))
        #expect(
            try serveOptions(["--cors-origins", "http://127.0.0.1:8000"], environment: environment).cors
                == CORSPolicy(origins: ["http://127.0.0.1:8000"]))
    }

    @Test("an item that is not an origin is a usage error naming it")
    func badOriginIsUsageError() throws {
        let error = try #require(throws: UsageError.self) {
            try serveOptions(["--cors-origins", "https://a.example/"])
        }
        #expect("\(error)".contains("'https://a.example/' is not an origin"))
    }
}
