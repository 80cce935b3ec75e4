/// Renders metrics in the Prometheus text exposition format, version 0.0.4: a `# HELP` and a
/// `# TYPE` line per family, then its samples, label values escaped (`\\`, `\"`, `\n`).
public struct PrometheusText: Sendable {
    /// The `Content-Type` of a scrape in this format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    public private(set) var text = ""

    public init() {}

    /// Starts a family: its help text and type. Its samples follow.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    public mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: UInt64) {
        line(name, labels, String(value))
    }

    public mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Int64) {
        line(name, labels, String(value))
    }

    public mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Double) {
        line(name, labels, Self.format(value))
    }

    /// The `_bucket` series (cumulative, `le` last among the labels), `_sum` and `_count` of one
    /// histogram; the family line comes first, from the caller.
    public mutating func histogram(_ name: String, labels: [(String, String)] = [], _ histogram: LatencyHistogram) {
        let (cumulative, sum) = histogram.snapshot()
        for (bound, count) in zip(LatencyHistogram.boundsSeconds, cumulative) {
            line(name + "_bucket", labels + [("le", Self.format(bound))], String(count))
        }
        let total = cumulative.last ?? 0
        line(name + "_bucket", labels + [("le", "+Inf")], String(total))
        line(name + "_sum", labels, Self.format(sum))
        line(name + "_count", labels, String(total))
    }

    private mutating func line(_ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (index, (label, labelValue)) in labels.enumerated() {
                if index > 0 { text += "," }
                text += label + "=\"" + Self.escapedLabelValue(labelValue) + "\""
            }
            text += "}"
        }
        text += " " + value + "\n"
    }

    /// A label value with `\`, `"` and line feeds escaped.
    public static func escapedLabelValue(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Help text with `\` and line feeds escaped.
    static func escapedHelp(_ help: String) -> String {
        guard help.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A }) else { return help }
        var escaped = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A float as Prometheus reads it: `+Inf`, `-Inf`, `NaN`, whole numbers without a fraction.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
