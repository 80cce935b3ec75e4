/// Process exit codes (sysexits.h where one fits).
public enum ExitCode: Int32, Sendable {
    case ok = 0
    case failure = 1
    /// A bad command line, including a token secret given as a value that is too short.
    case usage = 64
    /// A dependency (Redis, the port) is unavailable.
    case unavailable = 69
    /// Some work failed and will be retried by the next run (`EX_TEMPFAIL`: sweep's failed deletes;
    /// an upload whose requests kept failing with 5xx, 429, timeouts or resets past its retries).
    case tempFailure = 75
    /// A configuration file (a secret or keys file, the data dir) is missing, unreadable, empty
    /// or too weak (`EX_CONFIG`).
    case config = 78
}
