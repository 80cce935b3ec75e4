import Foundation
import PreviewCore
import PreviewCrypto
import PreviewProcess
import PreviewServer

#if canImport(Glibc)
    import Glibc
#endif

/// `streampreview capture`: cycles of ffmpeg capture (`FFmpegCapture`) and publish
/// (`PreviewUploader`), timed by `CaptureSchedule`, one stdout line each, until SIGTERM or SIGINT.
enum CaptureCommand {
    /// Where a cycle failed.
    enum Stage: String {
        case source
        case upload
    }

    /// How one cycle ended.
    enum Outcome {
        case published(PreviewUploader.Published, clip: FFmpegCapture.Clip)
        /// The server refused the clip with an answer that sending it again cannot change.
        case refused(reason: String, clip: FFmpegCapture.Clip)
        /// A failure of the passing kind: the source, the network, a busy server.
        case failed(stage: Stage, reason: String)
        /// A stop came while ffmpeg ran: the capture was abandoned.
        case stopped
    }

    static func run(_ options: CaptureOptions) throws -> ExitCode {
        // Before any thread starts, so every thread inherits the mask and only the watcher takes them.
        let signals = ShutdownSignals.block()
        let stop = CaptureStop()
        let watcher = Thread { stop.request(signals.wait(whileAlive: nil).description) }
        watcher.name = "capture-signals"
        watcher.start()

        guard let ffmpeg = ChildProcess.executable(named: options.ffmpeg) else {
            throw AppError(
                "\(options.ffmpeg) not found: capture runs ffmpeg (Debian: apt-get install ffmpeg), or give --ffmpeg PATH",
                exitCode: .unavailable)
        }
        _ = try options.uploader.loadToken()  // a missing token file is a start-up error (78), not a cycle's
        let transport = try CurlTransport()
        let capture = FFmpegCapture(
            ffmpeg: ffmpeg, source: options.source, settings: options.clip, timeoutSeconds: options.ffmpegTimeout,
            stop: stop)
        var schedule = CaptureSchedule(every: options.every)
        /// The last clip sent: the same bytes again are not sent.
        var last: (digest: [UInt8], what: String)?
        /// Whether the log said once that `--every` is longer than the server's refresh time.
        var warnedSlow = false
        Log.info(
            "capture_started",
            [
                "stream_id": String(options.uploader.streamId), "clip_seconds": String(options.clip.seconds),
                "every": options.every.map { "\($0)s" } ?? "server",
            ])
        while true {
            let started = ContinuousClock.now
            let outcome = cycle(options, capture: capture, transport: transport, last: last)
            let elapsed = Self.seconds(since: started)
            let id = options.uploader.streamId
            switch outcome {
            case .stopped:
                Log.info("capture_stopped", ["signal": stop.requested ?? "", "abandoned": "capture"])
                return .ok
            case .published(let published, let clip):
                last = (clip.digest, "version \(published.item.previewVersion)")
                schedule.heard(refreshAfter: published.ticket.refreshAfter)
                if let every = options.every, published.ticket.refreshAfter > 0, every > published.ticket.refreshAfter,
                    !warnedSlow
                {
                    warnedSlow = true
                    Log.warn(
                        "capture_slower_than_refresh",
                        ["every": "\(every)s", "refresh_after": "\(published.ticket.refreshAfter)s"])
                }
                let wait = schedule.delay(after: .published, elapsed: elapsed)
                emit(
                    "captured stream=\(id) version=\(published.item.previewVersion) bytes=\(clip.bytes) "
                        + "seconds=\(FFmpegCapture.seconds(published.item.durationMs))")
                if options.once { return .ok }
                if stop.sleep(seconds: wait) { return stopped(stop) }
            case .refused(let reason, let clip):
                last = (clip.digest, "the last one refused")
                let wait = schedule.delay(after: .refused, elapsed: elapsed)
                emit(errorLine(id, .upload, reason, wait: options.once ? nil : wait))
                if options.once { return .failure }
                if stop.sleep(seconds: wait) { return stopped(stop) }
            case .failed(let stage, let reason):
                let wait = schedule.delay(after: .failed, elapsed: elapsed)
                emit(errorLine(id, stage, reason, wait: options.once ? nil : wait))
                if options.once { return exitCode(failedAt: stage) }
                if stop.sleep(seconds: wait) { return stopped(stop) }
            }
        }
    }

    /// One capture and publish in a private folder, removed afterwards.
    static func cycle(
        _ options: CaptureOptions, capture: FFmpegCapture, transport: CurlTransport,
        last: (digest: [UInt8], what: String)?
    ) -> Outcome {
        let folder: String
        do { folder = try makeFolder() } catch {
            return .failed(stage: .source, reason: "\(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort: it is under the temp dir
        let clip: FFmpegCapture.Clip
        do throws(CaptureFailure) {
            clip = try capture.capture(in: folder, sha256: OpenSSLCrypto().sha256)
        } catch {
            switch error {
            case .stopped: return .stopped
            case .source(let reason):
                return .failed(stage: .source, reason: redact(reason, source: options.source))
            }
        }
        if let last, clip.digest == last.digest {
            return .failed(stage: .source, reason: "the source sent the same clip as \(last.what) (stalled or ended)")
        }
        do {
            var uploader = PreviewUploader(options: options.uploader, transport: transport)
            // The next cycle brings a fresher clip: a request is repeated a few times, not for
            // minutes, and a stop cuts the waits between attempts short.
            uploader.retry.maxAttempts = 3
            uploader.retry.putTimeout = 60
            let stop = capture.stop
            uploader.clock.sleep = { seconds in _ = stop.sleep(seconds: seconds) }
            let configured = uploader
            let published = try Blocking.run {
                try await configured.publish(moviePath: clip.clipPath, thumbnailPath: clip.thumbnailPath)
            }
            return .published(published, clip: clip)
        } catch let error as AppError where error.exitCode == .failure {
            // An answer that sending again cannot change (4xx, such as 422 from commit's checks).
            return .refused(reason: error.description, clip: clip)
        } catch {
            return .failed(stage: .upload, reason: "\(error)")
        }
    }

    /// `--once` after a failure of the passing kind: 75 when the server kept failing, as `upload`
    /// says it; 69 when the source did. (A refusal is 1, as for `upload`.)
    static func exitCode(failedAt stage: Stage) -> ExitCode {
        stage == .upload ? .tempFailure : .unavailable
    }

    /// `error stream=ID stage=STAGE reason="..." retry_in=Ns` (without the wait under `--once`).
    static func errorLine(_ stream: Int64, _ stage: Stage, _ reason: String, wait: Double?) -> String {
        let next = wait.map { " retry_in=\(Int($0.rounded(.up)))s" } ?? ""
        return "error stream=\(stream) stage=\(stage.rawValue) reason=\(LogfmtValue.quoted(reason))\(next)"
    }

    private static func stopped(_ stop: CaptureStop) -> ExitCode {
        Log.info("capture_stopped", ["signal": stop.requested ?? ""])
        return .ok
    }

    /// One line on stdout, written at once (stdout may be a file or a pipe).
    private static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// ffmpeg names its input in errors: a source URL may hold a stream key or a password.
    static func redact(_ reason: String, source: String) -> String {
        reason.replacingOccurrences(of: source, with: "<source>")
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// A fresh folder only this user can enter, under the temp dir.
    private static func makeFolder() throws -> String {
        var template = Array(
            (NSTemporaryDirectory() as NSString).appendingPathComponent("sp-capture-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw AppError("cannot make a folder under \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}
