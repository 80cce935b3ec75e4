// libFuzzer target for `IPAddress`, `CIDRBlock` and `TrustedProxies.clientAddress`; scripts/fuzz.sh
// builds and runs it. Input lines: trusted blocks (comma-separated), the peer, then the
// X-Forwarded-For fields, one a line (UTF-8).
@testable import PreviewCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientAddress(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let blocks = (lines.first ?? "").split(separator: ",").compactMap { CIDRBlock($0) }
    let peer = lines.count > 1 ? lines[1] : ""
    let forwarded = Array(lines.dropFirst(2))

    for line in lines {
        guard let address = IPAddress(line) else { continue }
        check(IPAddress(address.description) == address, "\(line) is written as \(address), which reads back otherwise")
        check(address.isIPv4 == !address.description.contains(":"), "\(address) family")
    }
    for block in blocks {
        check(block.contains(block.address), "\(block) does not contain its own address")
        check(CIDRBlock(block.description) == block, "\(block) does not read back")
    }
    let proxies = TrustedProxies(blocks)
    let client = proxies.clientAddress(peer: peer, forwardedFor: forwarded)
    check(client == nil || IPAddress(peer) != nil, "a client address from a peer that is no address: \(peer)")
    guard let client, let peerAddress = IPAddress(peer) else { return 0 }
    if !proxies.trusts(peerAddress) {
        check(client == peerAddress, "an untrusted peer \(peer) gave the client \(client)")
    } else if client != peerAddress {
        let entries = forwarded.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        check(
            entries.contains { TrustedProxies.forwardedAddress($0) == client },
            "\(client) is neither the peer nor an X-Forwarded-For entry")
    }
    return 0
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
