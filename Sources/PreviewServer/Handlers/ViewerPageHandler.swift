import PreviewCore
import PreviewCrypto

/// `GET /`, `/viewer.js`, `/viewer.css` (and `/favicon.ico`, 204): the viewer page, the files of
/// Sources/PreviewServer/ViewerPage compiled in by SwiftPM (`PackageResources`), with an ETag each and a Content-Security-Policy that lets the page load its own files, call this
/// server, and show objects from where the store's URLs point, and nothing else.
struct ViewerPageHandler: Sendable {
    private struct File: Sendable {
        let body: [UInt8]
        let type: String
        let etag: String
    }

    private let files: [File]
    /// Origins of the object URLs the feed hands out, beside this server's own.
    private let objectOrigins: @Sendable () -> [String]

    /// Object URLs are read from the store itself (one signed for now), so the policy follows
    /// `--public-base-url`, a bucket endpoint or the local store's base without being told.
    init(context: AppContext) {
        let storage = context.storage
        let publicBase = context.publicBaseURL
        self.init(crypto: context.crypto) { [context] in
            let signed = try? storage.downloadURL(key: "viewer-page-probe", now: context.now)
            let origins = [signed, publicBase].compactMap { $0.flatMap(Self.origin(of:)) }
            return Array(Set(origins)).sorted()
        }
    }

    init(crypto: OpenSSLCrypto, objectOrigins: @escaping @Sendable () -> [String]) {
        func file(_ body: [UInt8], _ type: String) -> File {
            File(body: body, type: type, etag: "\"" + Hex.encode(crypto.sha256(body).prefix(12)) + "\"")
        }
        files = Route.ViewerAsset.allCases.map { asset in
            switch asset {
            case .page: return file(PackageResources.index_html, "text/html; charset=utf-8")
            case .script: return file(PackageResources.viewer_js, "text/javascript; charset=utf-8")
            case .style: return file(PackageResources.viewer_css, "text/css; charset=utf-8")
            case .icon: return file([], "image/x-icon")  // answered 204 below
            }
        }
        self.objectOrigins = objectOrigins
    }

    func answer(_ request: HTTPRequest, asset: Route.ViewerAsset) -> HTTPResponse {
        if asset == .icon {
            // No icon: a day's 204 keeps browsers from asking on every page (and from logging a 404).
            return HTTPResponse(status: 204, headers: HTTPHeaders([("Cache-Control", "public, max-age=86400")]))
        }
        let file = files[Route.ViewerAsset.allCases.firstIndex(of: asset) ?? 0]
        var headers = HTTPHeaders()
        headers.add("Content-Type", file.type)
        // It changes only with the binary: kept, and asked again (304) before each reuse.
        headers.add("Cache-Control", "no-cache")
        headers.add("ETag", file.etag)
        headers.add("Content-Security-Policy", Self.policy(objectOrigins: objectOrigins()))
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("Referrer-Policy", "no-referrer")
        if EntityTag.ifNoneMatch(request.headers["If-None-Match"], matches: file.etag) {
            headers.remove("Content-Type")
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: .bytes(file.body))
    }

    /// No inline script or style, no other origin but the object store's; the page may be
    /// framed by its own origin only.
    static func policy(objectOrigins: [String]) -> String {
        let objects = (["'self'"] + objectOrigins).joined(separator: " ")
        return "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(objects); media-src \(objects); "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
    }

    /// `scheme://host[:port]` of an absolute URL (`CORSPolicy.origin(ofURL:)`); nil for anything else.
    static func origin(of url: String) -> String? { CORSPolicy.origin(ofURL: url) }
}
