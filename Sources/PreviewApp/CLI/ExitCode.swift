/// Process exit codes (sysexits.h where one fits).
public enum ExitCode: Int32, Sendable {
    case ok = 0
    case failure = 1
    case usage = 64
    case unavailable = 69
}
