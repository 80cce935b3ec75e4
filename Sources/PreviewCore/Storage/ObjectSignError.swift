/// Why an object URL cannot be signed.
public enum ObjectSignError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidKey(String)
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .invalidKey(let message), .invalidRequest(let message): return message
        }
    }
}
