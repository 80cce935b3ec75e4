import PreviewCore

/// `GET /api/openapi.yaml`: the API's OpenAPI 3.1 description, the bytes of proto/openapi.yaml
/// compiled into the binary by SwiftPM (`PackageResources`, through Sources/PreviewServer/OpenAPI). YAML whatever `Accept` says: it is a document
/// for tools, not an API message, so it takes no part in JSON/protobuf negotiation.
enum OpenAPIHandler {
    static var body: [UInt8] { PackageResources.openapi_yaml }

    static func document() -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/yaml")
        // It changes only with the binary: a client may keep it, asking again before each reuse.
        headers.add("Cache-Control", "no-cache")
        return HTTPResponse(status: 200, headers: headers, body: .bytes(body))
    }
}
