import PreviewCore
import Testing

@testable import PreviewApp

@Suite("Lease table")
struct LeaseTableTests {
    private func lease(_ left: Int64, expiresAt: Int64 = 10_000) -> RateLimitLease {
        RateLimitLease(left: left, remaining: 100, resetAt: 1_000, expiresAt: expiresAt, size: left + 1)
    }

    @Test("every key keeps its own lease through growth, and a class and a caller are told apart")
    func keysThroughGrowth() throws {
        var table = LeaseTable()
        // Far past the 16 slots it starts with: it grows several times.
        for number in 0..<1_000 {
            table.set(lease(Int64(number)), for: .init(.feed, "sub:viewer-\(number)"))
        }
        table.set(lease(7), for: .init(.write, "sub:viewer-3"))
        #expect(table.count == 1_001)
        for number in 0..<1_000 {
            #expect(table[.init(.feed, "sub:viewer-\(number)")]?.left == Int64(number))
        }
        #expect(table[.init(.write, "sub:viewer-3")]?.left == 7)
        #expect(table[.init(.write, "sub:viewer-4")] == nil)
        #expect(table[.init(.feed, "sub:viewer-1000")] == nil)

        // Replacing keeps one slot; a lease changed at its index is read back.
        table.set(lease(42), for: .init(.feed, "sub:viewer-5"))
        #expect(table.count == 1_001)
        let index = try #require(table.index(of: .init(.feed, "sub:viewer-5")))
        table[at: index].left -= 1
        #expect(table[.init(.feed, "sub:viewer-5")]?.left == 41)
    }

    @Test("removeAll(where:) drops just the leases it is told to, and the rest are still found")
    func removeWhere() {
        var table = LeaseTable()
        for number in 0..<200 {
            table.set(lease(1, expiresAt: Int64(number)), for: .init(.feed, "ip:10.0.0.\(number)"))
        }
        table.removeAll { $0.expiresAt < 150 }
        #expect(table.count == 50)
        for number in 0..<200 {
            #expect((table[.init(.feed, "ip:10.0.0.\(number)")] != nil) == (number >= 150))
        }
        table.removeAll { _ in true }
        #expect(table.count == 0)
        #expect(table[.init(.feed, "ip:10.0.0.199")] == nil)
    }

    @Test("a full shard of RateLimitLeases drops the expired leases, then all of them, and keeps the new one")
    func boundedLeases() {
        let leases = RateLimitLeases(maxPerShard: 4)
        // Enough callers that some shard fills: each of the 16 holds at most 4.
        for number in 0..<200 {
            leases.keep(
                lease(5, expiresAt: 1_000), .feed, caller: "sub:\(number)", answersAsk: false, nowMilliseconds: 0)
        }
        let held = (0..<200).filter { leases.lease(.feed, caller: "sub:\($0)") != nil }.count
        #expect(held <= 16 * 4)
        // Every lease kept last is there, whatever its shard dropped to make room.
        #expect(leases.lease(.feed, caller: "sub:199")?.left == 5)
    }
}
