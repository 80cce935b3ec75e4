import Foundation

/// The wall clock, read in one place so everything below takes `now` as a value.
///
/// Tests of expiry end to end move it instead of waiting: in a debug build, when
/// `STREAMPREVIEW_TEST_CLOCK_FILE` names a file, the whole number of seconds in it (e.g. `3600`,
/// `-60`) is added to every reading, and the file is read again at each one. Release builds do not
/// contain this code: the variable cannot shift a production clock, it is only logged as ignored.
package enum WallClock {
    package static let testClockVariable = "STREAMPREVIEW_TEST_CLOCK_FILE"

    /// Unix seconds.
    package static func now() -> Int64 { nowMilliseconds() / 1000 }

    /// Unix milliseconds.
    package static func nowMilliseconds() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000) + testOffsetSeconds() * 1000
    }

    /// The file named by `STREAMPREVIEW_TEST_CLOCK_FILE`, when set (any build).
    package static let testClockFile: String? = ProcessInfo.processInfo.environment[testClockVariable].flatMap {
        $0.isEmpty ? nil : $0
    }

    #if DEBUG
        /// True when readings are shifted by the test clock file.
        package static let isShifted = testClockFile != nil

        /// The offset in the test clock file; 0 when there is none. A file that cannot be read or
        /// holds no whole number stops the process: a test must not pass on the real clock by mistake.
        private static func testOffsetSeconds() -> Int64 {
            guard let file = testClockFile else { return 0 }
            guard let text = try? String(contentsOfFile: file, encoding: .utf8),
                let offset = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { fatalError("\(testClockVariable)=\(file) does not hold a whole number of seconds") }
            return offset
        }
    #else
        package static let isShifted = false

        private static func testOffsetSeconds() -> Int64 { 0 }
    #endif
}
