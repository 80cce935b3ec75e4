/// Commands in the RESP wire form (`*argc`, then `$len` and the bytes of each argument), laid
/// out by us in one buffer so a whole pipeline goes to hiredis in one append instead of one
/// formatting pass per argument. A feed request sends ~130 arguments: this runs hot.
struct RESPRequest {
    private(set) var bytes: [UInt8] = []
    private(set) var commandCount = 0

    init(_ commands: [[String]]) {
        var capacity = 0
        for command in commands {
            capacity += 16
            for argument in command { capacity += argument.utf8.count + 16 }
        }
        bytes.reserveCapacity(capacity)
        for command in commands {
            appendHeader(UInt8(ascii: "*"), command.count)
            for argument in command {
                let utf8 = argument.utf8
                appendHeader(UInt8(ascii: "$"), utf8.count)
                if utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                    bytes.append(contentsOf: utf8)
                }
                bytes.append(13)
                bytes.append(10)
            }
            commandCount += 1
        }
    }

    init(bytes commands: [[[UInt8]]]) {
        for command in commands {
            appendHeader(UInt8(ascii: "*"), command.count)
            for argument in command {
                appendHeader(UInt8(ascii: "$"), argument.count)
                bytes.append(contentsOf: argument)
                bytes.append(13)
                bytes.append(10)
            }
            commandCount += 1
        }
    }

    /// `marker`, `count` in decimal, CRLF; without building a String for the number.
    private mutating func appendHeader(_ marker: UInt8, _ count: Int) {
        bytes.append(marker)
        var divisor = 1
        while divisor <= count / 10 { divisor *= 10 }
        var rest = count
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
        bytes.append(13)
        bytes.append(10)
    }
}
