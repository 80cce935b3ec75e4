import Foundation
import PreviewApp

let code = StreamPreviewCLI.main(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(code.rawValue)
