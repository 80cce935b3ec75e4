import Foundation
import PreviewCore
public import PreviewServer

/// The program: parse, run one command, map failures to exit codes and one stderr line (its
/// text escaped for the terminal: a failure's message may quote a server, a store or a hook).
public enum StreamPreviewCLI {
    public static func main(arguments: [String], environment: [String: String]) -> ExitCode {
        // hiredis and libcurl write to sockets; a peer that went away must not kill us.
        _ = signal(SIGPIPE, SIG_IGN)  // ignored result: the previous handler (SIG_ERR only for a bad signal number)
        switch Command.parse(arguments, environment: environment) {
        case .failure(let error):
            FileHandle.standardError.write(Data("streampreview: \(error.message)\n".utf8))
            return .usage
        case .success(let command):
            do {
                switch command {
                case .help(let text):
                    print(text)
                    return .ok
                case .serve(let options): return try ServeCommand.run(options)
                case .sweep(let options): return try SweepCommand.run(options)
                case .token(let options): return try TokenCommand.run(options)
                case .upload(let options): return try UploadCommand.run(options)
                case .presign(let options): return try PresignCommand.run(options)
                case .capture(let options): return try CaptureCommand.run(options)
                case .webhooks(let options): return try WebhooksCommand.run(options)
                }
            } catch let error as AppError {
                FileHandle.standardError.write(Data("streampreview: \(TerminalText.escaped(error.description))\n".utf8))
                return error.exitCode
            } catch {
                FileHandle.standardError.write(Data("streampreview: \(TerminalText.escaped("\(error)"))\n".utf8))
                return .failure
            }
        }
    }
}
