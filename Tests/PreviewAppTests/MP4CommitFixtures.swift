import Foundation
import Testing

/// Small hand-built MP4s for app tests (ISO/IEC 14496-12 boxes): `ftyp`, then `moov` with an
/// `mvhd` and one video `trak`, and `mdat`, in either order.
enum MP4Clip {
    static func make(
        durationMs: UInt32 = 2000, width: UInt32 = 320, height: UInt32 = 240, fastStart: Bool = true,
        mdatBytes: Int = 16
    ) -> [UInt8] {
        let identity: [UInt8] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000].flatMap { be32($0) }
        let mvhd = fullBox(
            "mvhd",
            be32(0) + be32(0) + be32(1000) + be32(durationMs) + be32(0x0001_0000) + [1, 0]
                + [UInt8](repeating: 0, count: 10) + identity + [UInt8](repeating: 0, count: 24) + be32(2))
        let tkhd = fullBox(
            "tkhd",
            be32(0) + be32(0) + be32(1) + be32(0) + be32(durationMs) + [UInt8](repeating: 0, count: 16) + identity
                + be32(width << 16) + be32(height << 16))
        let hdlr = fullBox("hdlr", be32(0) + Array("vide".utf8) + [UInt8](repeating: 0, count: 13))
        let moov = box("moov", mvhd + box("trak", tkhd + box("mdia", hdlr)))
        let ftyp = box("ftyp", Array("isom".utf8) + be32(0x200) + Array("isomiso2".utf8))
        let mdat = box("mdat", (0..<mdatBytes).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        return ftyp + (fastStart ? moov + mdat : mdat + moov)
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }
    static func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
    static func be32(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

/// Clips made by Debian's `ffmpeg` (installed when missing and root; tests fail, never skip,
/// without it): 2 s, 320x240, an AAC audio track first, then MPEG-4 Part 2 video.
enum FFmpegClips {
    static func mp4(fastStart: Bool) throws -> [UInt8] { try (fastStart ? fastStartClip : plainClip).get() }

    private static let fastStartClip = Result { try generate(["-movflags", "+faststart"]) }
    private static let plainClip = Result { try generate([]) }

    private static func generate(_ extra: [String]) throws -> [UInt8] {
        let ffmpeg = try executable.get()
        let output = NSTemporaryDirectory() + "sp-commit-\(UUID().uuidString).mp4"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let arguments =
            [
                "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                "sine=frequency=440:duration=2",
                "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=25", "-map", "0:a", "-map", "1:v",
                "-c:a", "aac", "-c:v", "mpeg4", "-q:v", "5",
            ] + extra + [output]
        guard try run(ffmpeg, arguments) == 0 else { throw ClipFailure("ffmpeg \(arguments) failed") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    private static let executable = Result { () throws -> String in
        if let found = locate("ffmpeg") { return found }
        guard getuid() == 0 else {
            Issue.record("ffmpeg not found: install Debian package ffmpeg (scripts/install-deps.sh test)")
            throw ClipFailure("ffmpeg not found and not root")
        }
        // Waits for the dpkg lock, in case another suite installs at the same time.
        let apt = locate("apt-get") ?? "/usr/bin/apt-get"
        let install = ["-o", "DPkg::Lock::Timeout=600", "install", "-y", "-qq", "--no-install-recommends", "ffmpeg"]
        if try run(apt, install) != 0 {
            _ = try run(apt, ["-o", "DPkg::Lock::Timeout=600", "update", "-qq"])
            _ = try run(apt, install)
        }
        guard let installed = locate("ffmpeg") else {
            Issue.record("ffmpeg could not be installed with apt-get")
            throw ClipFailure("ffmpeg could not be installed")
        }
        return installed
    }

    private static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DEBIAN_FRONTEND"] = "noninteractive"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct ClipFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
