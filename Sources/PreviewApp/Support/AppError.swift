/// A start-up or command failure with a message for the operator and the exit code it maps to.
struct AppError: Error, CustomStringConvertible {
    var description: String
    var exitCode: ExitCode

    init(_ description: String, exitCode: ExitCode = .failure) {
        self.description = description
        self.exitCode = exitCode
    }
}
