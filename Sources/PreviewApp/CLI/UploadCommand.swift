import PreviewCore
import PreviewHTTPClient

/// `streampreview upload`: the whole uploader flow over HTTP with libcurl (`PreviewUploader`),
/// then prints the published item.
enum UploadCommand {
    static func run(_ options: UploadOptions) throws -> ExitCode {
        let client = try HTTPClient()
        let token =
            try options.tokenFile.map { String(decoding: try SecretFile.read($0, what: "token file"), as: UTF8.self) }
            ?? options.token
        let format: WireFormat = options.format == "protobuf" ? .protobuf : .json
        let uploader = PreviewUploader(
            client: client, api: APIClient(client: client, server: options.server, token: token, format: format))
        let published = try uploader.publish(
            streamId: options.streamId, moviePath: options.moviePath, thumbnailPath: options.thumbnailPath)
        print(String(decoding: published.item.jsonBytes(), as: UTF8.self))
        return .ok
    }
}
