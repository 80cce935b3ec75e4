/// Why a protobuf or JSON body could not be decoded into one of the API messages.
///
/// The messages are short and safe to show a client: they name a field or a wire
/// problem, never echo the input.
public enum WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a well-formed encoding at all (truncated, bad varint,
    /// reserved wire type, not JSON, top level not an object, ...).
    case malformed(String)
    /// The encoding is well formed but one field holds an unacceptable value;
    /// `name` is the proto/JSON field name (a path such as `items[0].likes` when nested).
    case invalidField(name: String, message: String)

    public var description: String {
        switch self {
        case .malformed(let message): message
        case .invalidField(let name, let message): "\(name): \(message)"
        }
    }
}
