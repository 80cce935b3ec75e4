import Foundation
import Glibc
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct LogTests {
    @Test func timestampsAreUTCWithMillisecondsAndReadTheWallClock() throws {
        let before = Date()
        let stamp = Log.timestamp()
        let after = Date()
        #expect(stamp.utf8.count == 24)
        #expect(stamp.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(stamp)")
        let parsed = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(stamp)
        #expect(parsed >= before.addingTimeInterval(-0.001) && parsed <= after, "\(stamp)")
    }

    @Test(
        "Every character that could end a line, forge one or restyle a terminal is escaped",
        arguments: [
            ("\u{1B}", #""/a\u001b[31mb""#), ("\r", #""/a\rb""#), ("\n", #""/a\nb""#), ("\u{7F}", #""/a\u007fb""#),
            ("\u{2028}", #""/a\u2028b""#), ("\u{2029}", #""/a\u2029b""#), ("\u{0}", #""/a\u0000b""#),
            ("\u{85}", #""/a\u0085b""#), ("\u{202E}", #""/a\u202eb""#), ("\u{FEFF}", #""/a\ufeffb""#),
            ("\t", #""/a\tb""#), ("\"", #""/a\"b""#), ("\\ ", #""/a\\ b""#),
        ])
    func controlCharactersAreEscaped(character: String, expected: String) {
        let value = character == "\u{1B}" ? "/a\u{1B}[31mb" : "/a" + character + "b"
        #expect(Log.quoted(value) == expected)
        let line = String(decoding: Log.line(.info, "request", ["path": value]), as: UTF8.self)
        #expect(line.utf8.filter { $0 < 0x20 || $0 == 0x7F }.map { $0 } == [0x0A], "only the line's own end")
        #expect(!line.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x2028 })
    }

    @Test func plainValuesStayUnquotedAndNonASCIITextStaysReadable() {
        #expect(Log.quoted("/api/feed") == "/api/feed")
        #expect(Log.quoted("") == #""""#)
        #expect(Log.quoted("a=b") == #""a=b""#)
        #expect(Log.quoted("/vidéo") == #""/vidéo""#)
    }

    @Test func aLongValueIsCutAt1024BytesSayingHowManyWereLeftOut() {
        #expect(Log.quoted(String(repeating: "a", count: 1024)) == String(repeating: "a", count: 1024))
        let long = Log.quoted(String(repeating: "a", count: 5000))
        #expect(long == "\"" + String(repeating: "a", count: 1024) + "...(3976 more bytes)\"")
        // A two-byte character is not split: 1023 bytes of "a", then "é" does not fit.
        let boundary = Log.quoted(String(repeating: "a", count: 1023) + "éé")
        #expect(boundary == "\"" + String(repeating: "a", count: 1023) + "...(4 more bytes)\"")
        let escapes = Log.quoted(String(repeating: "\u{1B}", count: 5000))
        #expect(escapes.utf8.count <= 1024 * 6 + 32)
    }
}

@Suite struct RequestLinesTests {
    /// A pipe to write into and read back from; closed at the end of the test.
    final class Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            read = ends[0]
            write = ends[1]
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(read)
            close(write)
        }

        /// Everything written so far.
        func drain() -> String {
            var text: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while case let count = Glibc.read(read, &buffer, buffer.count), count > 0 {
                text += buffer.prefix(count)
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    @Test func requestLinesWaitUntilAnotherLineWhichFollowsThemInOrder() throws {
        let pipe = try Pipe()
        let lines = RequestLines(descriptor: pipe.write, flushIntervalSeconds: nil)
        for number in 1...3 { lines.append(Array("request \(number)\n".utf8)) }
        lines.flush(then: Array("warn\n".utf8))
        #expect(pipe.drain() == "request 1\nrequest 2\nrequest 3\nwarn\n")
    }

    @Test func waitingLinesAreWrittenWithinTheInterval() throws {
        let pipe = try Pipe()
        let lines = RequestLines(descriptor: pipe.write, flushIntervalSeconds: 0.05)
        lines.append(Array("soon\n".utf8))
        var seen = ""
        #expect(
            eventually(within: 5) {
                seen += pipe.drain(); return seen == "soon\n"
            }, "the flusher wrote it: \(seen)")
    }

    @Test func aRequestThatFinds32KiBWaitingWritesThem() throws {
        let pipe = try Pipe()
        let lines = RequestLines(descriptor: pipe.write, flushIntervalSeconds: nil)
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [UInt8(ascii: "\n")]
        for _ in 0..<(RequestLines.flushBytes / line.count - 1) { lines.append(line) }
        #expect(pipe.drain().isEmpty)
        lines.append(line)
        #expect(pipe.drain().utf8.count == RequestLines.flushBytes, "the 32nd KiB is written by its request")
    }
}
