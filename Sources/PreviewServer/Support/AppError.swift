/// A start-up or command failure with a message for the operator and the exit code it maps to.
package struct AppError: Error, CustomStringConvertible {
    package var description: String
    package var exitCode: ExitCode

    package init(_ description: String, exitCode: ExitCode = .failure) {
        self.description = description
        self.exitCode = exitCode
    }
}
