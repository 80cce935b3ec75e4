import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct PresignCommandTests {
    let s3Environment = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "SECRET"]

    func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> PresignOptions {
        guard case .presign(let options) = try Command.parse(["presign"] + arguments, environment: environment).get()
        else { throw UsageError("not presign") }
        return options
    }

    func usageError(_ arguments: [String], environment: [String: String] = [:]) -> String? {
        if case .failure(let error) = Command.parse(["presign"] + arguments, environment: environment) {
            return error.message
        }
        return nil
    }

    @Test func headersSplitAtTheFirstColonAndQueriesAtTheFirstEquals() throws {
        let options = try parse([
            "--storage", "gcs", "--bucket", "b-1", "--key", "a b", "--method", "put",
            "--header", "Content-Type: video/mp4", "--header", " x-goog-meta-t :a:b ",
            "--query", "response-content-disposition=attachment; filename=\"x=y\"", "--query", "flag",
        ])
        #expect(options.method == "PUT")
        #expect(
            options.headers == [
                .init(name: "Content-Type", value: " video/mp4"), .init(name: "x-goog-meta-t", value: "a:b "),
            ])
        #expect(
            options.query == [
                .init(name: "response-content-disposition", value: "attachment; filename=\"x=y\""),
                .init(name: "flag", value: ""),
            ])
    }

    @Test func atFixesTheSigningTimeAndDefaultsFollowAWSPresign() throws {
        let options = try parse(["--storage", "s3", "--bucket", "b-1", "--key", "k", "--at", "2025-01-15T12:34:56Z"])
        #expect(options.signingTime == 1_736_944_496)
        #expect(options.expires == 3600)
        #expect(options.method == "GET")
        #expect(try parse(["--storage", "s3", "--bucket", "b-1", "--key", "k"]).signingTime == nil)
    }

    @Test(arguments: [
        (["--storage", "s3", "--bucket", "b"], "--key is required"),
        (["--storage", "s3", "--bucket", "b", "--key", ""], "the object key is empty"),
        (["--storage", "s3", "--bucket", "b", "--key", String(repeating: "x", count: 1025)], "1025 bytes"),
        (["--storage", "s3", "--bucket", "b", "--key", "k", "--method", "PATCH"], "--method"),
        (["--storage", "s3", "--bucket", "b", "--key", "k", "--at", "yesterday"], "--at"),
        (["--storage", "s3", "--bucket", "b", "--key", "k", "--expires", "604801"], "--expires"),
        (["--storage", "s3", "--bucket", "b", "--key", "k", "--header", "no colon"], "--header"),
        (["--storage", "s3", "--key", "k"], "--bucket is required"),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], fragment: String) {
        let message = usageError(arguments)
        #expect(message?.contains(fragment) == true, "\(message ?? "parsed")")
    }

    @Test func theCommandPrintsBotocoresURLForTheSameInputs() throws {
        let options = try parse(
            [
                "--storage", "s3", "--bucket", "my-bucket", "--key", "a b/c", "--expires", "900", "--at",
                "2025-01-15T12:34:56Z",
            ],
            environment: s3Environment)
        #expect(
            try PresignCommand.presignedURL(options, now: 0)
                == "https://my-bucket.s3.amazonaws.com/a%20b/c?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKID%2F20250115%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20250115T123456Z"
                + "&X-Amz-Expires=900&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=72adefbcc319faaada672e78c47ff1951fee32686736b6041fd25d050a965762")
    }

    @Test func streampreviewCredentialsWinOverTheAWSVariables() throws {
        let options = try parse(
            ["--storage", "s3", "--bucket", "b-1", "--key", "k", "--at", "2025-01-15T12:34:56Z"],
            environment: s3Environment.merging([
                "STREAMPREVIEW_S3_ACCESS_KEY_ID": "SPKEY", "STREAMPREVIEW_S3_SECRET_ACCESS_KEY": "x",
            ]) { $1 })
        #expect(try PresignCommand.presignedURL(options, now: 0).contains("X-Amz-Credential=SPKEY%2F"))
    }

    @Test func missingCredentialsNameTheVariablesToSet() throws {
        let s3 = try parse(["--storage", "s3", "--bucket", "b-1", "--key", "k"])
        #expect { try PresignCommand.presignedURL(s3, now: 0) } throws: {
            "\($0)".contains("STREAMPREVIEW_S3_ACCESS_KEY_ID")
        }
        let gcs = try parse(["--storage", "gcs", "--bucket", "b-1", "--key", "k"])
        #expect { try PresignCommand.presignedURL(gcs, now: 0) } throws: {
            "\($0)".contains("STREAMPREVIEW_GCS_HMAC_ACCESS_ID")
        }
    }

    @Test func theGCSSignerIsRSAWithAKeyFileAndHMACWithout() throws {
        let hmacEnvironment = ["STREAMPREVIEW_GCS_HMAC_ACCESS_ID": "GOOG1X", "STREAMPREVIEW_GCS_HMAC_SECRET": "s"]
        let hmac = try parse(["--storage", "gcs", "--bucket", "b-1", "--key", "k"], environment: hmacEnvironment)
        #expect(
            try PresignCommand.presignedURL(hmac, now: 1_736_944_496).contains("X-Goog-Algorithm=GOOG4-HMAC-SHA256"))

        let withKeyFile = hmacEnvironment.merging(["GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/key.json"]) { $1 }
        let rsa = try parse(["--storage", "gcs", "--bucket", "b-1", "--key", "k"], environment: withKeyFile)
        #expect(rsa.storage.gcsKeyFile == "/nonexistent/key.json")
        #expect { try PresignCommand.presignedURL(rsa, now: 0) } throws: {
            "\($0)".contains("cannot read the GCS key file")
        }
        let forced = try parse(
            ["--storage", "gcs", "--bucket", "b-1", "--key", "k", "--gcs-signer", "hmac"], environment: withKeyFile)
        #expect(try PresignCommand.presignedURL(forced, now: 1_736_944_496).contains("GOOG4-HMAC-SHA256"))
    }

    @Test func serviceAccountKeysAreReadWithCodableAndOtherKeyTypesRefused() throws {
        let json = Data(
            #"{"type":"service_account","client_email":"a@b.iam.gserviceaccount.com","private_key":"PEM"}"#.utf8)
        let key = try ServiceAccountKey.load(path: "k.json") { _ in json }
        #expect(key.clientEmail == "a@b.iam.gserviceaccount.com")
        #expect(key.privateKey == "PEM")
        #expect(throws: (any Error).self) {
            try ServiceAccountKey.load(path: "k.json") { _ in
                Data(#"{"type":"authorized_user","client_email":"a","private_key":"p"}"#.utf8)
            }
        }
        #expect(throws: (any Error).self) { try ServiceAccountKey.load(path: "k.json") { _ in Data("{}".utf8) } }
    }

    @Test func uploadHeadersDependOnTheBackend() {
        let gcs = SignerFactory.uploadHeaders(for: .gcs, contentType: "video/mp4", declaredBytes: 10, maxBytes: 99)
        #expect(gcs.map(\.value) == ["video/mp4", "0,99", "0"])
        let s3 = SignerFactory.uploadHeaders(for: .s3, contentType: "video/mp4", declaredBytes: 10, maxBytes: 99)
        #expect(s3.map(\.name) == ["Content-Type", "Content-Length", "If-None-Match"])
        let local = SignerFactory.uploadHeaders(for: .local, contentType: "video/mp4", declaredBytes: 10, maxBytes: 99)
        #expect(local.map(\.name) == ["Content-Type", "Content-Length"])
    }

    @Test func helpListsTheOptionsAndCredentialVariables() throws {
        guard case .help(let text) = try Command.parse(["presign", "--help"], environment: [:]).get() else {
            Issue.record("no help")
            return
        }
        #expect(text.contains("--gcs-signer"))
        #expect(text.contains("STREAMPREVIEW_GCS_KEY_FILE"))
    }

    // MARK: the local store's secret

    @Test func aWeakStorageSecretIsRefusedAsServeRefusesItWithExit78() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-presign")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let options = try parse(["--storage", "local", "--key", "a/b.mp4", "--data-dir", directory])
        for weak in ["0123456789\n", "", " \n"] {
            try Data(weak.utf8).write(to: URL(fileURLWithPath: directory + "/storage-secret"))
            var serveError: AppError?
            do { _ = try DataDirectory(path: directory).secret(named: "storage-secret") } catch let error as AppError {
                serveError = error
            }
            let expected = try #require(serveError, "serve refuses \(weak.debugDescription)")
            #expect(expected.exitCode == .config)
            #expect(throws: AppError.self) { try PresignCommand.presignedURL(options, now: 1_700_000_000) }
            do {
                _ = try PresignCommand.presignedURL(options, now: 1_700_000_000)
            } catch let error as AppError {
                #expect(error.description == expected.description && error.exitCode == .config)
            }
            #expect(
                StreamPreviewCLI.main(
                    arguments: ["presign", "--storage", "local", "--key", "a/b.mp4", "--data-dir", directory],
                    environment: [:]) == .config)
        }
        try Data((String(repeating: "s", count: 32) + "\n").utf8).write(
            to: URL(fileURLWithPath: directory + "/storage-secret"))
        #expect(try PresignCommand.presignedURL(options, now: 1_700_000_000).hasPrefix("http://127.0.0.1:8080/"))
    }

    @Test func aMissingStorageSecretIsNotCreated() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-presign") + "/data"
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let options = try parse(["--storage", "local", "--key", "a/b.mp4", "--data-dir", directory])
        #expect(throws: AppError.self) { try PresignCommand.presignedURL(options, now: 1_700_000_000) }
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
