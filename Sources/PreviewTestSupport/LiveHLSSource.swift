// A live HLS stream made by ffmpeg on this machine, for the capture tests. Linux (glibc) only.
import Foundation
import PreviewProcess
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// ffmpeg encoding a test pattern with a burnt-in wall clock and frame number at real time
/// (`-re`) into one-second HLS segments in `folder` (a six-segment live playlist, old segments
/// deleted), as a live encoder does. `kill()` stops it with SIGKILL, as a crashed encoder
/// stops: the playlist stays without `#EXT-X-ENDLIST`, so readers wait for segments that never
/// come. `start()` again resumes it under new segment names. Killed by deinit.
public final class LiveHLSSource: Sendable {
    public let folder: String
    /// The playlist's file name in `folder`.
    public static let playlist = "live.m3u8"
    private let ffmpeg: String
    private let state = Mutex<(child: ChildProcess?, runs: Int)>((nil, 0))

    /// Starts encoding into a fresh folder under /tmp.
    public init() throws {
        ffmpeg = try FFmpegClips.ffmpegPath()
        folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-hls")
        try start()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: folder)  // best effort: leftovers in /tmp are harmless
    }

    /// Starts (again) the encoder; its segments are named after the run (`r2-7.ts`).
    public func start() throws {
        let run = state.withLock { state -> Int in
            state.runs += 1
            return state.runs
        }
        let arguments = [
            ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25",
            "-vf",
            "drawtext=text='%{localtime\\:%T} %{n}':fontsize=48:fontcolor=white:box=1:boxcolor=black:x=24:y=24",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
            "-f", "hls", "-hls_time", "1", "-hls_list_size", "6", "-hls_flags", "delete_segments+temp_file",
            "-hls_segment_filename", folder + "/r\(run)-%d.ts", folder + "/" + Self.playlist,
        ]
        let child = try ChildProcess.spawn(
            arguments: arguments, stdoutPath: folder + "/ffmpeg-\(run).log", diesWithParent: true)
        state.withLock { $0.child = child }
    }

    /// SIGKILLs the encoder, if running, and waits until it is reaped.
    public func kill() {
        guard let child = state.withLock({ $0.child }) else { return }
        child.send(SIGKILL)
        _ = child.waitForExit(timeout: 10)
    }

    /// Whether the encoder runs now (it exits on its own only when it fails).
    public var isRunning: Bool { state.withLock { $0.child.map { !$0.hasExited } ?? false } }

    /// The segments the playlist lists now.
    public var listedSegments: [String] {
        let text = (try? String(contentsOfFile: folder + "/" + Self.playlist, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.hasSuffix(".ts") }.map(String.init)
    }

    /// What the encoder logged (its errors), for failure messages.
    public var log: String {
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.filter { $0.hasSuffix(".log") }
        return (logs ?? []).sorted().compactMap { try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
    }
}
