import Foundation
import PreviewServer

/// The text of upload progress: a one-line bar for a terminal, and plain lines for logs. Pure
/// and ASCII only, so a line's length is its width on screen.
enum ProgressLine {
    /// One transfer's state at a moment.
    struct Snapshot: Sendable, Equatable {
        var name: String
        var sent: Int64
        var total: Int64
        /// Bytes per second lately; nil before there is a rate to tell.
        var rate: Double?
        /// Seconds since the attempt started.
        var elapsed: Double
    }

    /// The bar that fits in `width` columns (the last column is never written, so no terminal
    /// wraps): `clip.mp4 [=====>    ]  43% 4.2 MiB of 9.8 MiB  1.1 MiB/s  0:05 left`. What does not
    /// fit goes in this order: the bar, the middle of the file name, the end of the line.
    static func bar(_ snapshot: Snapshot, width: Int, finished: Bool = false) -> String {
        let columns = max(width - 1, 1)
        let status = " " + statusText(snapshot, finished: finished)
        let name = snapshot.name
        let barSpace = columns - name.count - status.count - 3  // " [" and "]"
        if barSpace >= minimumBar {
            let cells = min(barSpace, maximumBar)
            return name + " [" + barCells(fraction(snapshot), cells: cells) + "]" + status
        }
        let nameSpace = columns - status.count
        if nameSpace >= minimumName { return shortened(name, to: nameSpace) + status }
        return String((shortened(name, to: minimumName) + status).prefix(columns))
    }

    /// `43% 4.2 MiB of 9.8 MiB  1.1 MiB/s  0:05 left`, or at the end `100% 9.8 MiB  2.3 MiB/s  in 4.2 s`.
    static func statusText(_ snapshot: Snapshot, finished: Bool) -> String {
        let percent = percentText(snapshot).leftPadded(to: 4)
        if finished {
            let rate = snapshot.elapsed > 0 ? Double(snapshot.total) / snapshot.elapsed : nil
            return
                "\(percent) \(bytes(snapshot.total))  \(rate.map(Self.rate) ?? "-")  in \(duration(snapshot.elapsed))"
        }
        let left = timeLeft(snapshot).map { clock($0) + " left" } ?? "--:-- left"
        return "\(percent) \(bytes(snapshot.sent)) of \(bytes(snapshot.total))  "
            + "\(snapshot.rate.map(Self.rate) ?? "- B/s")  \(left)"
    }

    /// The first plain line of a file: `uploading clip.mp4 (9.8 MiB)`.
    static func plainStart(name: String, total: Int64) -> String { "uploading \(name) (\(bytes(total)))" }

    /// A plain progress line: `clip.mp4: 50% (4.9 MiB of 9.8 MiB, 1.1 MiB/s, 0:04 left)`; without
    /// the rate and time left while there is no rate yet.
    static func plainProgress(_ snapshot: Snapshot) -> String {
        let counts = "\(bytes(snapshot.sent)) of \(bytes(snapshot.total))"
        guard let rate = snapshot.rate, let left = timeLeft(snapshot) else {
            return "\(snapshot.name): \(percentText(snapshot)) (\(counts))"
        }
        return "\(snapshot.name): \(percentText(snapshot)) (\(counts), \(Self.rate(rate)), \(clock(left)) left)"
    }

    /// The last plain line of a file: `uploaded clip.mp4: 9.8 MiB in 4.3 s (2.3 MiB/s)`.
    static func plainDone(_ snapshot: Snapshot) -> String {
        let rate = snapshot.elapsed > 0 ? " (" + Self.rate(Double(snapshot.total) / snapshot.elapsed) + ")" : ""
        return
            "uploaded \(snapshot.name): \(bytes(snapshot.total)) in \(duration(snapshot.elapsed))\(rate)"
    }

    /// Whole percent sent, rounded down (100% only once everything is sent); an empty body is 100%.
    static func percent(_ snapshot: Snapshot) -> Int {
        guard snapshot.total > 0 else { return 100 }
        return Int(min(100, max(0, snapshot.sent * 100 / snapshot.total)))
    }

    /// `512 B`, `1.5 KiB`, `9.8 MiB`, `1.2 GiB` (binary units, one decimal above bytes).
    static func bytes(_ count: Int64) -> String {
        guard count >= 1024 else { return "\(max(count, 0)) B" }
        var value = Double(count) / 1024
        for unit in ["KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" { return String(format: "%.1f %@", value, unit) }
            value /= 1024
        }
        return "\(count) B"
    }

    /// `1.1 MiB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(min(max(bytesPerSecond, 0), 1e15).rounded())) + "/s"
    }

    /// `0:05`, `12:40`, `1:02:03`; whole seconds, rounded up so `0:00` means done.
    static func clock(_ seconds: Double) -> String {
        let total = Int(min(max(seconds, 0), 359_999).rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }

    /// How long something took: `0.4 s`, `12.0 s`, then `1:05` from a minute on.
    static func duration(_ seconds: Double) -> String {
        seconds < 59.95 ? UploadMessages.seconds(max(seconds, 0)) + " s" : clock(seconds)
    }

    /// Seconds until the rest is sent at the current rate; nil without a rate.
    static func timeLeft(_ snapshot: Snapshot) -> Double? {
        guard let rate = snapshot.rate, rate > 0 else { return nil }
        return Double(max(snapshot.total - snapshot.sent, 0)) / rate
    }

    private static let minimumBar = 10
    private static let maximumBar = 40
    private static let minimumName = 8

    private static func percentText(_ snapshot: Snapshot) -> String { "\(percent(snapshot))%" }

    private static func fraction(_ snapshot: Snapshot) -> Double {
        snapshot.total > 0 ? min(1, max(0, Double(snapshot.sent) / Double(snapshot.total))) : 1
    }

    /// `=====>    ` in `cells` columns; all `=` when full.
    static func barCells(_ fraction: Double, cells: Int) -> String {
        let filled = Int((fraction * Double(cells)).rounded(.down))
        if filled >= cells { return String(repeating: "=", count: cells) }
        return String(repeating: "=", count: filled) + ">" + String(repeating: " ", count: cells - filled - 1)
    }

    /// `name` in at most `limit` columns, its middle replaced by `...` (the extension stays).
    static func shortened(_ name: String, to limit: Int) -> String {
        guard name.count > limit else { return name }
        guard limit > 3 else { return String(name.suffix(limit)) }
        let keep = limit - 3
        return String(name.prefix(keep / 2)) + "..." + String(name.suffix(keep - keep / 2))
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
