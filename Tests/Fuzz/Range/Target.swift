// libFuzzer target for `ByteRange.resolve` (scripts/fuzz.sh builds and runs it).
// Input: 8 bytes of representation length (little-endian; only the low 40 bits, so short
// lengths are common), then the `Range` header value as UTF-8.
@testable import PreviewCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRange(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 8 else { return 0 }
    var length: UInt64 = 0
    for byte in bytes[..<8].reversed() { length = length << 8 | UInt64(byte) }
    length &= (1 << 40) - 1
    let header = String(decoding: bytes[8...], as: UTF8.self)

    let range = ByteRange.resolve(header, length: length)
    switch range {
    case .whole:
        break
    case .unsatisfiable:
        // Only a range starting at or past the end, or an empty suffix, is unsatisfiable.
        check(header.lowercased().contains("bytes="), "416 for a header without bytes=: \(header)")
    case .partial(let offset, let count):
        check(isIntRangeOrSuffix(header), "206 for a range-spec that is not RFC 9110's: \(header)")
        check(count >= 1, "empty partial range for \(header) of \(length)")
        check(offset < length, "offset \(offset) past length \(length) for \(header)")
        check(count <= length - offset, "range \(offset)+\(count) past length \(length) for \(header)")
    }
    check(ByteRange.resolve(header, length: length) == range, "resolve is not deterministic for \(header)")
    check(ByteRange.resolve(nil, length: length) == .whole, "no header must mean the whole body")
    return 0
}

/// `bytes=<digits>-[<digits>]` or `bytes=-<digits>` (RFC 9110 §14.1.1), spaces allowed around
/// the numbers and the whole; the unit is case-insensitive.
func isIntRangeOrSuffix(_ header: String) -> Bool {
    let spaces: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t")]
    var bytes = Array(header.utf8)
    while let first = bytes.first, spaces.contains(first) { bytes.removeFirst() }
    while let last = bytes.last, spaces.contains(last) { bytes.removeLast() }
    guard bytes.count > 6, String(decoding: bytes[..<6], as: UTF8.self).lowercased() == "bytes=" else { return false }
    let parts = bytes[6...].split(separator: UInt8(ascii: "-"), maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return false }
    func digits(_ part: ArraySlice<UInt8>) -> Bool {
        let trimmed = part.drop { spaces.contains($0) }.reversed().drop { spaces.contains($0) }
        return !trimmed.isEmpty && trimmed.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
    if parts[0].allSatisfy({ spaces.contains($0) }) { return digits(parts[1]) }
    return digits(parts[0]) && (parts[1].allSatisfy { spaces.contains($0) } || digits(parts[1]))
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
