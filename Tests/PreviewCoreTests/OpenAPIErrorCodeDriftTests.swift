import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The error codes proto/openapi.yaml gives each route's error statuses, against the server's
/// error table (`APIError.Code.status`). Each error response's schema is ErrorResponse in `allOf`
/// with `code` narrowed to an `enum` of that response's codes: one value or several, never
/// `const`, which openapi-python-client cannot merge with ErrorCode's enum (it drops the schema
/// and every response of it from the client it generates).
enum OpenAPIErrorCodes {
    /// One `'409': {$ref: '#/components/responses/CommitConflict'}` of a route.
    struct Use: Equatable {
        var route: String
        var status: Int
        var response: String
    }

    /// The statuses of every route that name a reusable response, in the file's order.
    static func uses(in yaml: String) -> [Use] {
        var uses: [Use] = []
        var path = ""
        var route = ""
        let status = /^ {8}'([0-9]{3})': \{\$ref: '#\/components\/responses\/([A-Za-z]+)'\}$/
        for line in yaml.split(separator: "\n") {
            if let match = line.wholeMatch(of: /^  (\/[^ :]+):$/) {
                path = String(match.1)
            } else if let match = line.wholeMatch(of: /^    (get|put|post|delete|patch):$/) {
                route = "\(match.1.uppercased()) \(path)"
            } else if let match = line.wholeMatch(of: status), let code = Int(match.1) {
                uses.append(Use(route: route, status: code, response: String(match.2)))
            }
        }
        return uses
    }

    /// The schema of a reusable response's JSON body, by name.
    static func jsonSchema(ofResponse name: String, in openAPI: OpenAPISchemas) -> String? {
        guard let body = openAPI.responses[name], let content = openAPI.entry("content", in: body),
            let json = openAPI.entry("application/json", in: content.body),
            let schema = openAPI.entry("schema", in: json.body), let ref = openAPI.entry("$ref", in: schema.body)
        else { return nil }
        return ref.value.trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
            .replacingOccurrences(of: "#/components/schemas/", with: "")
    }

    /// The codes an error schema's `enum` names; nil when the schema is not ErrorResponse in
    /// `allOf`, empty when it narrows `code` with no `enum`.
    static func codes(ofSchema name: String, in openAPI: OpenAPISchemas) -> [String]? {
        guard let body = openAPI.schemas[name], let allOf = openAPI.entry("allOf", in: body) else { return nil }
        let items = OpenAPISchemas.entries(allOf.body).filter { $0.key == "-" }
        guard items.contains(where: { $0.value.contains("#/components/schemas/ErrorResponse") }) else { return nil }
        var codes: [String] = []
        for item in items {
            guard let properties = openAPI.entry("properties", in: item.body),
                let code = openAPI.entry("code", in: properties.body),
                let values = openAPI.entry("enum", in: code.body)
            else { continue }
            codes += OpenAPISchemas.flowItems(([values.value] + values.body.map(\.text)).joined(separator: " "))
        }
        return codes
    }

    /// What disagrees with the server: an error response whose schema names no codes in an `enum`,
    /// or a code the server does not have or answers with another status.
    static func problems(yaml: String) throws -> [String] {
        let openAPI = try OpenAPISchemas(yaml: yaml)
        var problems: [String] = []
        for use in uses(in: yaml) {
            guard let schema = jsonSchema(ofResponse: use.response, in: openAPI),
                let codes = codes(ofSchema: schema, in: openAPI)
            else { continue }
            let place = "\(use.route) \(use.status) (\(use.response), \(schema))"
            if codes.isEmpty { problems.append("\(place) narrows code without an enum") }
            for code in codes {
                guard let known = APIError.Code(rawValue: code) else {
                    problems.append("\(place) names \(code), which the server does not have")
                    continue
                }
                if known.status != use.status {
                    problems.append("\(place) names \(code), which the server answers with \(known.status)")
                }
            }
        }
        return problems
    }
}

@Suite("OpenAPI: each route's error statuses name the codes the server answers with them")
struct OpenAPIErrorCodeDriftTests {
    static func yaml() throws -> String {
        try String(contentsOfFile: TestPaths.repositoryRoot + "/proto/openapi.yaml", encoding: .utf8)
    }

    @Test("every error response's codes are an enum of server codes of its status")
    func errorCodesMatchTheServer() throws {
        let yaml = try Self.yaml()
        #expect(try OpenAPIErrorCodes.problems(yaml: yaml) == [])
        let openAPI = try OpenAPISchemas(yaml: yaml)
        let uses = OpenAPIErrorCodes.uses(in: yaml)
        let commit422 = try #require(uses.first { $0.route == "POST /api/preview/commit" && $0.status == 422 })
        let schema = try #require(OpenAPIErrorCodes.jsonSchema(ofResponse: commit422.response, in: openAPI))
        #expect(OpenAPIErrorCodes.codes(ofSchema: schema, in: openAPI)?.contains("rejected_by_hook") == true)
        let like429 = try #require(uses.first { $0.route == "POST /api/streams/{streamId}/like" && $0.status == 429 })
        #expect(like429.response == "RateLimited")
        #expect(OpenAPIErrorCodes.codes(ofSchema: "RateLimitedError", in: openAPI) == ["rate_limited"])
    }

    @Test("every server code with a status some route documents is named by a response of that status")
    func everyDocumentedStatusNamesItsCodes() throws {
        let yaml = try Self.yaml()
        let openAPI = try OpenAPISchemas(yaml: yaml)
        var named: Set<String> = []
        for use in OpenAPIErrorCodes.uses(in: yaml) {
            guard let schema = OpenAPIErrorCodes.jsonSchema(ofResponse: use.response, in: openAPI) else { continue }
            named.formUnion(OpenAPIErrorCodes.codes(ofSchema: schema, in: openAPI) ?? [])
        }
        // The local store's object routes (/objects/...) are outside the document, and so are their codes;
        // not_found and method_not_allowed are answered for routes the document does not have.
        let outside: Set<APIError.Code> = [
            .signatureInvalid, .urlExpired, .objectExists, .uploadInProgress, .lengthRequired, .rangeNotSatisfiable,
            .notFound, .methodNotAllowed,
        ]
        let missing = APIError.Code.allCases.filter { !outside.contains($0) && !named.contains($0.rawValue) }
        #expect(missing.map(\.rawValue) == [])
    }

    @Test("a code narrowed with const instead of an enum is reported")
    func constCodeIsReported() throws {
        let yaml = try Self.yaml()
        let narrowed = "            code:\n              enum: [rate_limited]\n"
        #expect(yaml.contains(narrowed))
        let changed = yaml.replacingOccurrences(
            of: narrowed, with: "            code:\n              const: rate_limited\n")
        let problems = try OpenAPIErrorCodes.problems(yaml: changed)
        #expect(
            problems.contains(
                "POST /api/streams/{streamId}/like 429 (RateLimited, RateLimitedError) narrows code without an enum"))
    }

    @Test("a code of another status is reported")
    func codeOfAnotherStatusIsReported() throws {
        let yaml = try Self.yaml()
        let conflict = "enum: [upload_not_found, object_missing]"
        #expect(yaml.contains(conflict))
        let changed = yaml.replacingOccurrences(
            of: conflict, with: "enum: [upload_not_found, object_missing, rejected_by_hook]")
        let problems = try OpenAPIErrorCodes.problems(yaml: changed)
        #expect(
            problems == [
                "POST /api/preview/commit 409 (CommitConflict, CommitConflictError) names rejected_by_hook, which the server answers with 422"
            ])
    }
}
