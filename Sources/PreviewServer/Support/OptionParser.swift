import Foundation

/// One option of a subcommand: its flag, its environment variable, and whether it repeats.
package struct OptionSpec: Sendable {
    var flag: String
    var environment: String?
    var help: String
    var repeats = false
    var isSwitch = false

    package init(flag: String, environment: String? = nil, help: String, repeats: Bool = false, isSwitch: Bool = false)
    {
        self.flag = flag
        self.environment = environment
        self.help = help
        self.repeats = repeats
        self.isSwitch = isSwitch
    }
}

/// What was given for a subcommand: flags override environment, which overrides defaults.
package struct ParsedOptions: Sendable {
    var values: [String: [String]] = [:]
    package var positional: [String] = []
    package var helpRequested = false

    package func string(_ flag: String) -> String? { values[flag]?.last }
    package func all(_ flag: String) -> [String] { values[flag] ?? [] }
    package func isSet(_ flag: String) -> Bool { values[flag] != nil }

    /// A switch: false when absent, true for `--flag` or `--flag=true`, false for `--flag=false`;
    /// any other value is a usage error (never read as "given, so on").
    package func bool(_ flag: String) throws(UsageError) -> Bool {
        guard let text = string(flag) else { return false }
        switch text {
        case "true": return true
        case "false": return false
        default: throw UsageError("--\(flag) takes true or false, not '\(text)'")
        }
    }

    package func int64(_ flag: String, default fallback: Int64, range: ClosedRange<Int64>) throws(UsageError) -> Int64 {
        guard let text = string(flag) else { return fallback }
        guard let value = Int64(text), range.contains(value) else {
            throw UsageError(
                "--\(flag) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }
}

public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    package init(_ message: String) { self.message = message }
    public var description: String { message }
}

package enum OptionParser {
    /// Parses `--flag value`, `--flag=value` and switches; environment fills what flags don't.
    package static func parse(
        _ arguments: [String], environment: [String: String], specs: [OptionSpec], positionalAllowed: Int = 0
    ) throws(UsageError) -> ParsedOptions {
        var parsed = ParsedOptions()
        var fromFlags: [String: [String]] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                parsed.helpRequested = true
                continue
            }
            guard argument.hasPrefix("--") else {
                guard parsed.positional.count < positionalAllowed else {
                    throw UsageError("unexpected argument '\(argument)'")
                }
                parsed.positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.flag == name }) else {
                throw UsageError("unknown option '--\(name)'")
            }
            let value: String
            if spec.isSwitch {
                value = inlineValue ?? "true"
            } else if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            if !spec.repeats, fromFlags[name] != nil { throw UsageError("--\(name) given twice") }
            fromFlags[name, default: []].append(value)
        }
        for spec in specs {
            if let values = fromFlags[spec.flag] {
                parsed.values[spec.flag] = values
            } else if let variable = spec.environment, let value = environment[variable], !value.isEmpty {
                parsed.values[spec.flag] = spec.repeats ? value.split(separator: ",").map(String.init) : [value]
            }
        }
        return parsed
    }

    /// The options part of a `--help` text.
    package static func helpText(_ specs: [OptionSpec]) -> String {
        specs.map { spec in
            // A flag as long as the column still gets a space before its help (padding truncates).
            let flag = "  --\(spec.flag)"
            var line = flag.padding(toLength: max(26, flag.count + 2), withPad: " ", startingAt: 0) + spec.help
            if let variable = spec.environment { line += " [env \(variable)]" }
            return line
        }.joined(separator: "\n")
    }
}

/// Option values more than one command reads.
package enum OptionValue {
    /// A base URL without a trailing slash; only http and https.
    package static func baseURL(_ text: String, flag: String) throws(UsageError) -> String {
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else {
            throw UsageError("--\(flag) must start with http:// or https://")
        }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
