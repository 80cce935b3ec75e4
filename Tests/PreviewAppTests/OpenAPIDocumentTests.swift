import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("GET /api/openapi.yaml serves proto/openapi.yaml from the binary")
struct OpenAPIDocumentTests {
    @Test("the document compiled into the binary is proto/openapi.yaml byte for byte")
    func embeddedDocumentIsTheFile() throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: TestPaths.repositoryRoot + "/proto/openapi.yaml"))
        let response = try AppHarness().send("GET", "/api/openapi.yaml")
        #expect(response.status == 200)
        #expect(response.bytes == Array(file))
    }

    @Test("the route answers the document as application/yaml, whatever Accept says, with a request ID")
    func routeAnswersYAML() throws {
        let app = try AppHarness()
        for accept in [nil, "application/x-protobuf", "text/html"] {
            let response = app.send("GET", "/api/openapi.yaml", headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(response.status == 200, "Accept: \(accept ?? "none")")
            #expect(response.headers["Content-Type"] == "application/yaml")
            #expect(response.bytes == OpenAPIHandler.body)
            #expect(response.headers["X-Request-Id"] != nil)
        }
    }
}
