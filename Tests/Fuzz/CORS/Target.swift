// libFuzzer target for `CORSPolicy` (configuration, preflights, answers) and `Route.methods`;
// scripts/fuzz.sh builds and runs it.
// Input, lines: the configured origin list, the request's Origin, its
// Access-Control-Request-Method, its Access-Control-Request-Headers, the path, and whether it
// carries Authorization ("1").
@testable import PreviewCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCORS(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var lines = text.split(separator: "\n", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
    while lines.count < 6 { lines.append("") }
    let (configured, origin, method, asked, path) = (lines[0], lines[1], lines[2], lines[3], lines[4])

    let parsed = CORSPolicy.parse(configured)
    check(CORSPolicy.parse(configured) == parsed, "parse is not deterministic for \(configured)")
    guard case .success(let found) = parsed, let policy = found else { return 0 }
    for listed in policy.origins {
        // What was kept is what a browser sends, so it is kept as it is.
        check(
            (try? CORSPolicy.parse(listed).get()) == CORSPolicy(origins: [listed]),
            "\(listed) (from \(configured)) does not parse to itself")
    }

    var request = HTTPHeaders([("Origin", origin)])
    if lines[5] == "1" { request.add("Authorization", "Bearer x") }
    var answer = HTTPHeaders()
    policy.decorate(&answer, method: method, path: path, requestHeaders: request)
    if let allowOrigin = answer["Access-Control-Allow-Origin"] {
        check(CORSPolicy.covers(path: path), "CORS fields on \(path)")
        check(
            allowOrigin == origin && policy.origins.contains(origin)
                || allowOrigin == "*" && policy.anyOriginReads && lines[5] != "1"
                    && ["GET", "HEAD"].contains(method),
            "Allow-Origin \(allowOrigin) for \(origin) \(method) \(path)")
    }

    guard case .success(let methods) = Route.methods(path: path) else { return 0 }
    check(!methods.isEmpty && !methods.contains("OPTIONS"), "methods \(methods) of \(path)")
    for each in methods { check(Route.parse(method: each, path: path).isSuccess, "\(each) \(path) does not parse") }
    request = HTTPHeaders([("Origin", origin), ("Access-Control-Request-Method", method)])
    request.add("Access-Control-Request-Headers", asked)
    if case .allowed(let fields) = policy.preflight(path: path, methods: methods, requestHeaders: request) {
        let allowOrigin = fields["Access-Control-Allow-Origin"] ?? ""
        check(
            allowOrigin == origin && policy.origins.contains(origin) || allowOrigin == "*" && policy.anyOriginReads,
            "preflight Allow-Origin \(allowOrigin) for \(origin)")
        check(methods.contains(method), "preflight allowed \(method), not a method of \(path)")
        let allowedHeaders = (fields["Access-Control-Allow-Headers"] ?? "").lowercased()
        for name in asked.split(separator: ",") {
            let trimmed = name.trimmingSpacesAndTabs().lowercased()
            check(trimmed.isEmpty || allowedHeaders.contains(trimmed), "preflight allowed header \(trimmed)")
            check(allowOrigin != "*" || trimmed != "authorization", "* allowed Authorization")
        }
    }
    return 0
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
