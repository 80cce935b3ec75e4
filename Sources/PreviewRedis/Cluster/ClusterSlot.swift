/// Redis Cluster key slots: CRC16-XMODEM of the key's hash tag, modulo 16384, as the cluster
/// specification defines them. Pure code.
public enum ClusterSlot {
    /// Number of slots in a cluster.
    public static let count = 16384

    /// The slot of `key`: of its hash tag when it has one, else of the whole key.
    public static func of(_ key: String) -> Int {
        Int(crc16(hashTag(Array(key.utf8))) % UInt16(count))
    }

    /// The bytes that are hashed: those between the first `{` and the first `}` after it, when
    /// that is not empty; otherwise the whole key (`{}` and a lone `{` hash the whole key).
    public static func hashTag(_ key: [UInt8]) -> ArraySlice<UInt8> {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")),
            let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
        else { return key[...] }
        return key[(open + 1)..<close]
    }

    /// CRC16-CCITT in the XMODEM variant (polynomial 0x1021, initial value 0, no reflection).
    public static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
