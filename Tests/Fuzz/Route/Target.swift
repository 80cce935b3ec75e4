// libFuzzer target for `Route.parse`; scripts/fuzz.sh builds and runs it.
// Input: the method, a newline, then the raw path (UTF-8).
import PreviewCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoute(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let pieces = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let method = String(pieces[0])
    let path = pieces.count > 1 ? String(pieces[1]) : ""

    let result = Route.parse(method: method, path: path)
    check(Route.parse(method: method, path: path) == result, "parse is not deterministic for \(method) \(path)")
    switch result {
    case .success(let route):
        check(path.hasPrefix("/"), "\(route) from a path without a leading /: \(path)")
        check(["GET", "HEAD", "PUT", "DELETE", "POST"].contains(method), "method \(method) accepted")
        // The route's traits name the label it is counted under, whose method is the request's.
        check(RouteLabel(route).method == method, "\(route) is labelled \(RouteLabel(route).method) for \(method)")
        switch route {
        case .object(let objectMethod, let encodedKey):
            check(objectMethod.rawValue == method, "object route \(objectMethod) for method \(method)")
            check(Route.objectsPrefix + encodedKey == path, "object key \(encodedKey) is not the rest of \(path)")
        case .deletePreview(let id), .like(let id), .unlike(let id), .markSeen(let id), .share(let id),
            .shareThumbnail(let id), .reportPlay(let id), .reportShare(let id), .streamStats(let id),
            .setWatchURL(let id):
            check(id > 0, "stream id \(id) from \(path)")
            check(path.split(separator: "/").contains { StreamID.parse(String($0)) == id }, "id \(id) not in \(path)")
        case .health, .ready, .metrics, .postPreview, .commitPreview, .feed, .openAPIDocument, .feedEvents,
            .viewerPage:
            break
        }
    case .failure(.methodNotAllowed(let allowed)):
        check(!allowed.isEmpty && !allowed.contains(method), "405 for \(method), allowed \(allowed)")
        check(Route.parse(method: allowed[0], path: path).isSuccess, "\(allowed[0]) \(path) is not allowed either")
    case .failure(.badStreamID(let text)):
        check(StreamID.parse(text) == nil, "\(text) is a valid stream id but was refused")
    case .failure(.notFound):
        break
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
