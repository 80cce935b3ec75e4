#if canImport(Glibc)
    import Glibc
#endif

/// Polls `condition` every millisecond (`everyMicroseconds`: for a condition that costs the
/// system under test a request) until it holds or `seconds` pass; returns whether it held.
/// Tests wait for a condition with this instead of sleeping a fixed time.
public func eventually(within seconds: Int = 10, everyMicroseconds: UInt32 = 1_000, _ condition: () -> Bool)
    -> Bool
{
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(everyMicroseconds)
    }
    return true
}
