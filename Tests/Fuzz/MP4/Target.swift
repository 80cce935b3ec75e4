// libFuzzer target for `MP4Inspector`; scripts/fuzz.sh builds and runs it.
// Input: a whole clip. It is inspected whole, and again as a caller reads it: a short prefix,
// then the one more read the inspector asks for; both ways must agree.
import PreviewCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP4(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let clip = Array(UnsafeBufferPointer(start: data, count: size))
    let total = Int64(clip.count)
    let whole = MP4Inspector.inspect(prefix: clip, totalSize: total)
    check(!isNeedMore(whole), "asked for more bytes with the whole clip read: \(whole)")
    if case .complete(let info) = whole { checkInfo(info) }

    for prefixLength in [16, clip.count / 2] {
        let prefix = Array(clip.prefix(prefixLength))
        var result = MP4Inspector.inspect(prefix: prefix, totalSize: total)
        if case .needMore(let offset, let length) = result {
            check(offset >= 0 && length > 0, "needMore(\(offset), \(length))")
            check(length <= MP4Inspector.Limits().maxMoovBytes, "needMore(\(offset), \(length)) too long")
            check(offset + Int64(length) <= total, "needMore(\(offset), \(length)) past the end \(total)")
            let more = Array(clip[Int(offset)..<Int(offset) + length])
            result = MP4Inspector.inspect(prefix: prefix, more: more, at: offset, totalSize: total)
            check(!isNeedMore(result), "asked for a third read: \(result)")
        }
        switch (whole, result) {
        case (.complete, _), (_, .complete):
            check(whole == result, "whole clip: \(whole), read in two steps from \(prefixLength) bytes: \(result)")
        default:
            break
        }
    }
    return 0
}

func isNeedMore(_ inspection: MP4Inspection) -> Bool {
    if case .needMore = inspection { return true }
    return false
}

func checkInfo(_ info: MP4Info) {
    check(info.durationMs >= 0 && info.width >= 0 && info.height >= 0, "negative value in \(info)")
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
