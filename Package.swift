// swift-tools-version:6.0
// The target graph is the architecture: a pure core, one thin adapter per C library, the
// server over them (PreviewServer), the command line that wires it (PreviewApp), and the
// Foundation-only package apps add (StreamPreviewClient, with ProtobufWire).
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
    name: "StreamPreview",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "streampreview", targets: ["streampreview"]),
        // What an app adds: Foundation (URLSession) only, no C module in its graph
        // (scripts/check-client-graph.sh checks it).
        .library(name: "StreamPreviewClient", targets: ["StreamPreviewClient"]),
    ],
    targets: [
        // System libraries from Debian (module.modulemap + one-line header each).
        // hiredis without pkg-config: its .pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with a
        // warning; the header is on the default include path (<hiredis/hiredis.h>).
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Linux's epoll header, which Swift's Glibc module lacks (glibc itself: nothing to install).
        .systemLibrary(name: "CEpoll"),
        // Only what Swift cannot call (variadic C functions, macros): one shim module per C
        // library, depended on by that library's adapter alone.
        .target(name: "CShimsCurl", dependencies: ["CCurl"]),
        .target(name: "CShimsMHD", dependencies: ["CMicroHTTPD"]),

        // The protobuf wire format's reader and writer: no dependencies, shared by the server's
        // messages (PreviewCore) and the app package's.
        .target(name: "ProtobufWire", swiftSettings: strict),
        .target(name: "PreviewCore", dependencies: ["ProtobufWire"], swiftSettings: strict),
        // The one place that spawns child processes (posix_spawn, empty signal mask): embedded redis-server, tests.
        .target(name: "PreviewProcess", swiftSettings: strict),
        .target(
            name: "PreviewRedis", dependencies: ["PreviewCore", "PreviewProcess", "CHiredis"], swiftSettings: strict),
        .target(
            name: "PreviewHTTPClient", dependencies: ["PreviewCore", "CCurl", "CShimsCurl"], swiftSettings: strict),
        .target(
            name: "PreviewHTTPServer", dependencies: ["PreviewCore", "CMicroHTTPD", "CShimsMHD", "CEpoll"],
            swiftSettings: strict),
        .target(name: "PreviewCrypto", dependencies: ["PreviewCore", "COpenSSL"], swiftSettings: strict),
        // The service: its routes, authentication and keys, rate limits, feed, events, figures,
        // the moderation hook, webhooks, storage, metrics, and the jobs `serve` runs beside them
        // (the sweeper, the webhook relay), which the `sweep` and `webhooks` commands run alone.
        .target(
            name: "PreviewServer",
            dependencies: ["PreviewCore", "PreviewRedis", "PreviewHTTPClient", "PreviewHTTPServer", "PreviewCrypto"],
            // Served from memory (`PackageResources`, written by SwiftPM at build time): the viewer
            // page's files, and proto/openapi.yaml through the OpenAPI/openapi.yaml link.
            resources: [
                .embedInCode("ViewerPage/index.html"), .embedInCode("ViewerPage/viewer.js"),
                .embedInCode("ViewerPage/viewer.css"), .embedInCode("OpenAPI/openapi.yaml"),
            ],
            swiftSettings: strict),
        // The command line: each command of the binary with its options (`serve`, `sweep`,
        // `webhooks`, `token`, `presign` over the server's parts; `upload` and `capture` over the
        // app package's uploader with libcurl).
        .target(
            name: "PreviewApp",
            dependencies: [
                "PreviewServer", "PreviewCore", "PreviewRedis", "PreviewHTTPClient", "PreviewHTTPServer",
                "PreviewCrypto", "StreamPreviewClient",
            ],
            swiftSettings: strict),
        // The app-side client (uploads, feed, events, the strip model): self-contained, with its own JSON
        // models, so an iOS or macOS app builds no C library and none of the server.
        .target(name: "StreamPreviewClient", dependencies: ["ProtobufWire"], swiftSettings: strict),
        .executableTarget(name: "streampreview", dependencies: ["PreviewApp"], swiftSettings: strict),
        .target(
            name: "PreviewTestSupport",
            dependencies: ["PreviewCore", "PreviewProcess", "PreviewRedis", "PreviewHTTPClient"],
            swiftSettings: strict),

        .testTarget(
            name: "PreviewCoreTests",
            dependencies: ["PreviewCore", "ProtobufWire", "PreviewCrypto", "PreviewTestSupport"]),
        .testTarget(name: "PreviewRedisTests", dependencies: ["PreviewRedis", "PreviewTestSupport"]),
        .testTarget(
            name: "PreviewHTTPClientTests",
            dependencies: ["PreviewHTTPClient", "PreviewHTTPServer", "PreviewTestSupport"]),
        .testTarget(
            name: "PreviewHTTPServerTests",
            dependencies: ["PreviewHTTPServer", "PreviewHTTPClient", "PreviewTestSupport"]),
        .testTarget(name: "PreviewCryptoTests", dependencies: ["PreviewCrypto", "PreviewTestSupport"]),
        .testTarget(
            name: "PreviewAppTests",
            dependencies: ["PreviewApp", "PreviewServer", "PreviewTestSupport", "StreamPreviewClient"]),
        .testTarget(name: "StreamPreviewClientTests", dependencies: ["StreamPreviewClient"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "PreviewTestSupport", "PreviewCore", "PreviewHTTPClient", "PreviewCrypto", "StreamPreviewClient",
            ]),
    ]
)
