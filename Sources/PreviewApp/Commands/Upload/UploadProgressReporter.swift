import Foundation
import PreviewCore
import PreviewServer
import Synchronization

/// Tells a person how an upload goes, on stderr (stdout carries the published item): a bar
/// redrawn in place on a terminal, at most 10 times a second; plain lines for logs (start,
/// each quarter, done); or nothing. Retry notes go in the same stream, between bars.
///
/// Called from libcurl's progress callback on the uploading thread, and from the uploader.
final class UploadProgressReporter: Sendable {
    enum Mode: String, Sendable, Equatable, CaseIterable {
        case bar
        case plain
        case none
    }

    let mode: Mode
    private let write: @Sendable (String) -> Void
    private let clock: @Sendable () -> Double
    private let width: @Sendable () -> Int
    private let state: Mutex<State>

    private struct State {
        var name = ""
        var total: Int64 = 0
        var sent: Int64 = 0
        var started = 0.0
        var throttle: ProgressThrottle
        var meter = RateMeter()
        /// Quarters (25%, 50%, 75%) already told in plain mode.
        var quartersShown = 0
        /// A bar is on screen without its line end.
        var barShown = false
    }

    /// - Parameters:
    ///   - write: where the text goes (stderr; tests collect it).
    ///   - clock: monotonic seconds (tests step it).
    ///   - width: the terminal's columns, asked at each draw (it may be resized).
    ///   - maxDrawsPerSecond: the bar's redraw limit.
    init(
        mode: Mode, write: @escaping @Sendable (String) -> Void = UploadProgressReporter.writeToStandardError,
        clock: @escaping @Sendable () -> Double = UploadProgressReporter.monotonicSeconds,
        width: @escaping @Sendable () -> Int = TerminalSize.standardErrorColumns, maxDrawsPerSecond: Double = 10
    ) {
        self.mode = mode
        self.write = write
        self.clock = clock
        self.width = width
        state = Mutex(State(throttle: ProgressThrottle(maxPerSecond: maxDrawsPerSecond)))
    }

    /// Shows nothing (the default of `PreviewUploader`).
    static let silent = UploadProgressReporter(mode: .none)

    /// An attempt at sending `name` (`total` bytes) starts; the display starts from 0.
    func begin(name: String, total: Int64, attempt: Int) {
        guard mode != .none else { return }
        let now = clock()
        let text = state.withLock { state -> String? in
            state.name = name
            state.total = total
            state.sent = 0
            state.started = now
            state.meter = RateMeter()
            state.meter.record(sent: 0, at: now)
            state.quartersShown = 0
            state.throttle.reset()
            switch mode {
            case .bar: return draw(&state, now: now, force: true)
            case .plain: return attempt == 1 ? ProgressLine.plainStart(name: name, total: total) + "\n" : nil
            case .none: return nil
            }
        }
        if let text { write(text) }
    }

    /// Bytes sent so far in the current attempt (libcurl's count).
    func update(sent: Int64) {
        guard mode != .none else { return }
        let now = clock()
        let text = state.withLock { state -> String? in
            state.sent = sent
            state.meter.record(sent: sent, at: now)
            switch mode {
            case .bar: return draw(&state, now: now, force: false)
            case .plain:
                let quarter = ProgressLine.percent(snapshot(state, now: now)) / 25
                guard quarter > state.quartersShown, quarter < 4 else { return nil }
                state.quartersShown = quarter
                return ProgressLine.plainProgress(snapshot(state, now: now)) + "\n"
            case .none: return nil
            }
        }
        if let text { write(text) }
    }

    /// The current attempt stored the file.
    func finish() {
        guard mode != .none else { return }
        let now = clock()
        let text = state.withLock { state -> String? in
            state.sent = state.total
            let done = snapshot(state, now: now)
            switch mode {
            case .bar:
                state.barShown = false
                return "\r" + ProgressLine.bar(done, width: width(), finished: true) + clearToEnd + "\n"
            case .plain: return ProgressLine.plainDone(done) + "\n"
            case .none: return nil
            }
        }
        if let text { write(text) }
    }

    /// A line of its own (a retry, a stored-earlier note); a bar on screen is cleared first and
    /// drawn again at the next update. The line is escaped for the terminal: it quotes answers.
    func note(_ line: String) {
        guard mode != .none else { return }
        let text = state.withLock { state in
            defer {
                state.barShown = false
                state.throttle.reset()
            }
            return (state.barShown ? "\r" + clearToEnd : "") + TerminalText.escaped(line) + "\n"
        }
        write(text)
    }

    /// Ends a bar's line, so an error printed next starts on a line of its own.
    func endLine() {
        let shown = state.withLock { state in
            defer { state.barShown = false }
            return state.barShown
        }
        if shown { write("\n") }
    }

    /// "Erase to the end of the line" (ECMA-48 EL): a shorter redraw leaves nothing behind.
    private let clearToEnd = "\u{1B}[K"

    private func draw(_ state: inout State, now: Double, force: Bool) -> String? {
        guard state.throttle.allows(now: now) || force else { return nil }
        state.barShown = true
        return "\r" + ProgressLine.bar(snapshot(state, now: now), width: width()) + clearToEnd
    }

    private func snapshot(_ state: State, now: Double) -> ProgressLine.Snapshot {
        ProgressLine.Snapshot(
            name: state.name, sent: state.sent, total: state.total, rate: state.meter.bytesPerSecond,
            elapsed: now - state.started)
    }

    @Sendable static func writeToStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    @Sendable static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

/// The terminal on stderr: whether there is one, and its width.
enum TerminalSize {
    /// Whether stderr is a terminal that can redraw a line (not `TERM=dumb`).
    static func standardErrorIsTerminal(environment: [String: String]) -> Bool {
        isatty(STDERR_FILENO) == 1 && environment["TERM"] != "dumb"
    }

    /// Columns of the terminal on stderr (TIOCGWINSZ), else `COLUMNS`, else 80.
    @Sendable static func standardErrorColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return columns
        }
        return 80
    }
}
