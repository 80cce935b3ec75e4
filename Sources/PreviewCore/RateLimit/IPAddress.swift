/// An IPv4 or IPv6 address as 128 bits, parsed and written without the C library, so it can be
/// fuzzed and tested as a pure function. IPv4 addresses are held as IPv4-mapped IPv6
/// (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2), so a dual-stack listener's mapped peer and a plain
/// IPv4 address are the same value.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The first 64 bits, in network order as a number.
    public let high: UInt64
    /// The last 64 bits.
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(ipv4: UInt32) {
        self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(ipv4))
    }

    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The address as RFC 5952 writes IPv6 (lower case, the longest run of two or more zero
    /// groups as `::`), and dotted decimal for IPv4.
    public var description: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return (0..<4).map { String((v4 >> (24 - 8 * UInt32($0))) & 0xFF) }.joined(separator: ".")
        }
        let groups = (0..<8).map { index -> UInt16 in
            let word = index < 4 ? high : low
            return UInt16(truncatingIfNeeded: word >> (48 - 16 * UInt64(index % 4)))
        }
        var bestStart = -1
        var bestLength = 1  // a single zero group is not shortened (RFC 5952 §4.2.2)
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, groups[end] == 0 { end += 1 }
            if end - index > bestLength {
                bestStart = index
                bestLength = end - index
            }
            index = end
        }
        func hex(_ range: Range<Int>) -> String {
            range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
        }
        guard bestStart >= 0 else { return hex(0..<8) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
    }

    /// Dotted-decimal IPv4 (four decimal parts 0-255, no leading zeros, as inet_pton takes them)
    /// or RFC 4291 §2.2 IPv6 text, with an embedded IPv4 tail; no zone, brackets or port. Nil
    /// for anything else.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 45 else { return nil }
        if !bytes.contains(UInt8(ascii: ":")) {
            guard let v4 = Self.parseIPv4(bytes[...]) else { return nil }
            self.init(ipv4: v4)
            return
        }
        guard let (high, low) = Self.parseIPv6(bytes) else { return nil }
        self.init(high: high, low: low)
    }

    static func parseIPv4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(isDecimalDigit),
                part.count == 1 || part.first != UInt8(ascii: "0")
            else { return nil }
            let number = part.reduce(UInt32(0)) { $0 * 10 + UInt32($1 - UInt8(ascii: "0")) }
            guard number <= 255 else { return nil }
            value = value << 8 | number
        }
        return value
    }

    private static func parseIPv6(_ bytes: [UInt8]) -> (UInt64, UInt64)? {
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        var text = bytes[...]
        if text.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
            sawGap = true
            text = text.dropFirst(2)
            if text.isEmpty { return (0, 0) }
        } else if text.first == UInt8(ascii: ":") {
            return nil
        }
        while !text.isEmpty {
            let end = text.firstIndex(of: UInt8(ascii: ":")) ?? text.endIndex
            let part = text[..<end]
            if part.contains(UInt8(ascii: ".")) {
                // An IPv4 tail ends the address and fills two groups.
                guard end == text.endIndex, let v4 = parseIPv4(part) else { return nil }
                let groups = [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                if sawGap { tail += groups } else { head += groups }
                text = text[end...]
                break
            }
            guard (1...4).contains(part.count), let group = UInt16(String(decoding: part, as: UTF8.self), radix: 16)
            else { return nil }
            if sawGap { tail.append(group) } else { head.append(group) }
            text = text[end...]
            if text.isEmpty { break }
            text = text.dropFirst()  // the colon
            if text.first == UInt8(ascii: ":") {
                guard !sawGap else { return nil }
                sawGap = true
                text = text.dropFirst()
            } else if text.isEmpty {
                return nil  // a trailing single colon
            }
        }
        let count = head.count + tail.count
        guard sawGap ? count <= 7 : count == 8 else { return nil }
        let groups = head + [UInt16](repeating: 0, count: 8 - count) + tail
        let high = groups[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        let low = groups[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        return (high, low)
    }

    /// What per-address limits (rate limits, connections, event streams) count under: the
    /// address itself for IPv4, its /64 for IPv6. One IPv6 host is usually given a whole /64, so
    /// counting single IPv6 addresses would let one client have the limit from each of 2^64.
    public var limitPrefix: IPAddress { isIPv4 ? self : IPAddress(high: high, low: 0) }

    /// `limitPrefix` as text (`2001:db8::/64`, or the IPv4 address).
    public var limitGroup: String { isIPv4 ? description : limitPrefix.description + "/64" }

    /// The address of 16 bytes in network order (a socket's `in6_addr`); nil for another length.
    public init?(networkBytes bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.init(
            high: bytes[..<8].reduce(0) { $0 << 8 | UInt64($1) }, low: bytes[8...].reduce(0) { $0 << 8 | UInt64($1) })
    }
}

/// An address block `address/bits` (RFC 4632 for IPv4, RFC 4291 §2.3 for IPv6); a bare
/// address is the block of that one address. IPv4 blocks match IPv4 peers and their
/// IPv4-mapped IPv6 form alike.
public struct CIDRBlock: Sendable, Hashable, CustomStringConvertible {
    public let address: IPAddress
    /// Prefix bits over the 128-bit form (an IPv4 /24 is 120 here).
    public let bits: Int

    public init?(_ text: String) {
        self.init(Substring(text))
    }

    public init?(_ text: Substring) {
        let trimmed = text.trimmingSpacesAndTabs()
        let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard (1...3).contains(parts[1].count), parts[1].utf8.allSatisfy(isDecimalDigit),
                let number = Int(parts[1]),
                number <= width
            else { return nil }
            bits = number
        }
        self.bits = bits + (address.isIPv4 ? 96 : 0)
        self.address = Self.masked(address, bits: self.bits)
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        Self.masked(candidate, bits: bits) == address
    }

    public var description: String {
        "\(address)/\(address.isIPv4 ? bits - 96 : bits)"
    }

    static func masked(_ address: IPAddress, bits: Int) -> IPAddress {
        func mask(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits)) }
        return IPAddress(high: address.high & mask(bits), low: address.low & mask(bits - 64))
    }
}

private func isDecimalDigit(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
}
