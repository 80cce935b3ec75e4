/// Commands in the RESP wire form (`*argc`, then `$len` and the bytes of each argument), laid
/// out by us in one buffer so a whole pipeline goes to hiredis in one append instead of one
/// formatting pass per argument.
struct RESPRequest {
    private(set) var bytes: [UInt8] = []
    private(set) var commandCount = 0

    init() {}

    init(_ commands: [[String]]) {
        bytes.reserveCapacity(
            commands.reduce(0) { sum, command in command.reduce(sum + 16) { $0 + $1.utf8.count + 16 } })
        for command in commands { append(command.map(\.utf8)) }
    }

    init(bytes commands: [[[UInt8]]]) {
        for command in commands { append(command) }
    }

    mutating func append<Argument: Collection<UInt8>>(_ arguments: [Argument]) {
        appendHeader(UInt8(ascii: "*"), arguments.count)
        for argument in arguments {
            appendHeader(UInt8(ascii: "$"), argument.count)
            bytes.append(contentsOf: argument)
            bytes.append(contentsOf: Self.lineEnd)
        }
        commandCount += 1
    }

    private mutating func appendHeader(_ marker: UInt8, _ count: Int) {
        bytes.append(marker)
        bytes.append(contentsOf: String(count).utf8)
        bytes.append(contentsOf: Self.lineEnd)
    }

    private static let lineEnd: [UInt8] = [13, 10]
}
