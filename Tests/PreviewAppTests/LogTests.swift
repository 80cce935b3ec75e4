import Foundation
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
