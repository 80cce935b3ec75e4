import Foundation
import Glibc
import PreviewTestSupport
import Testing

@testable import PreviewApp

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
