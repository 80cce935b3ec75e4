/// What a commit hook decided about a preview, read from its answer.
public enum CommitHookVerdict: Sendable, Equatable {
    /// `{"allow": true}`, with the labels to store with the preview (empty when none).
    case allow(labels: [String: String])
    /// `{"allow": false, "reason": "..."}`; the reason is empty when the hook gave none.
    case refuse(reason: String)
}

/// Why a hook's answer could not be read as a verdict; the commit then fails closed (or open).
public struct CommitHookAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Reads a commit hook's answer: a 2xx status and a JSON object with a boolean `allow`, an
/// optional string `reason` (refusals) and an optional `labels` object (approvals, checked by
/// `PreviewLabels.problem`). Other members are ignored, so a hook may add its own; anything
/// else (another status, a body that is not such an object, duplicate keys, bad labels) is an
/// error rather than a guess.
public enum CommitHookAnswer {
    /// Answers longer than this are not read (the HTTP client stops at it).
    public static let maxBodyBytes = 64 * 1024
    /// A longer reason is cut, on a character boundary, to this many UTF-8 bytes.
    public static let maxReasonBytes = 1024

    public static func parse(status: Int, body: [UInt8]) -> Result<CommitHookVerdict, CommitHookAnswerError> {
        guard (200...299).contains(status) else { return .failure(.init("the hook answered HTTP \(status)")) }
        guard body.count <= maxBodyBytes else {
            return .failure(.init("the hook's answer is over \(maxBodyBytes) bytes"))
        }
        guard var reader = JSONObjectReader(body) else {
            return .failure(.init("the hook's answer is not a JSON object with distinct keys"))
        }
        guard case .bool(let allow)? = reader.value("allow") else {
            return .failure(.init("the hook's answer has no boolean \"allow\""))
        }
        guard allow else {
            let reason = reader.optionalString("reason") ?? ""
            guard !reader.failed else { return .failure(.init("the hook's \"reason\" is not a string")) }
            return .success(.refuse(reason: truncated(reason, maxBytes: maxReasonBytes)))
        }
        switch labels(reader.value("labels")) {
        case .success(let labels): return .success(.allow(labels: labels))
        case .failure(let error): return .failure(error)
        }
    }

    private static func labels(_ value: JSONValue?) -> Result<[String: String], CommitHookAnswerError> {
        guard let value, value != .null else { return .success([:]) }
        guard let members = value.uniqueMembers else {
            return .failure(.init("the hook's \"labels\" is not a JSON object with distinct keys"))
        }
        var labels: [String: String] = [:]
        for member in members {
            guard case .string(let text) = member.value else {
                return .failure(.init("the hook's label \(member.key.debugDescription) is not a string"))
            }
            labels[member.key] = text
        }
        if let problem = PreviewLabels.problem(labels) { return .failure(.init("the hook's labels: \(problem)")) }
        return .success(labels)
    }

    /// `text` cut to at most `maxBytes` UTF-8 bytes without splitting a character.
    static func truncated(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= maxBytes else { break }
            result.append(character)
        }
        return result
    }
}
