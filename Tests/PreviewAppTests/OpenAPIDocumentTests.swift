import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp

@Suite("GET /api/openapi.yaml serves proto/openapi.yaml from the binary")
struct OpenAPIDocumentTests {
    @Test("the document compiled into the binary is proto/openapi.yaml byte for byte (run scripts/openapi/embed.sh)")
    func embeddedDocumentIsTheFile() throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: TestPaths.repositoryRoot + "/proto/openapi.yaml"))
        let same = Array(OpenAPIDocument.yaml.utf8) == Array(file)
        #expect(same, "proto/openapi.yaml differs from the copy compiled in: run scripts/openapi/embed.sh")
    }

    @Test("the route answers the document as application/yaml, whatever Accept says, with a request ID")
    func routeAnswersYAML() throws {
        let app = try AppHarness()
        for accept in [nil, "application/x-protobuf", "text/html"] {
            let response = app.send("GET", "/api/openapi.yaml", headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(response.status == 200, "Accept: \(accept ?? "none")")
            #expect(response.headers["Content-Type"] == "application/yaml")
            let isDocument = response.bytes == Array(OpenAPIDocument.yaml.utf8)
            #expect(isDocument)
            #expect(response.headers["X-Request-Id"] != nil)
        }
    }
}
