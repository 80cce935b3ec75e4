import Foundation
import PreviewCore
import PreviewCrypto
import Testing

@Suite struct DigestTests {
    let crypto = OpenSSLCrypto()

    @Test func sha256MatchesTheFIPS180Vectors() {
        #expect(
            Hex.encode(crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(crypto.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(
            Hex.encode(crypto.sha256(twoBlocks)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    static let rfc4231: [(name: String, key: [UInt8], data: [UInt8], mac: String)] = [
        (
            "1", [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "2", Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            "3", [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "4", Array(1...25), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            "6 (key longer than the block)", [UInt8](repeating: 0xaa, count: 131),
            Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            "7 (key and data longer than the block)", [UInt8](repeating: 0xaa, count: 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data."
                    + " The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
        ("empty key and message", [], [], "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ]

    @Test(arguments: rfc4231.indices)
    func hmacMatchesRFC4231(_ index: Int) {
        let vector = Self.rfc4231[index]
        #expect(
            Hex.encode(crypto.hmacSHA256(key: vector.key, message: vector.data)) == vector.mac, "case \(vector.name)")
    }

    @Test func constantTimeEqualComparesContentAndLength() {
        #expect(crypto.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(crypto.constantTimeEqual([], []))
        #expect(!crypto.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!crypto.constantTimeEqual([9, 2, 3], [1, 2, 3]))
        #expect(!crypto.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(!crypto.constantTimeEqual([], [0]))
    }

    @Test func secureRandomGivesTheAskedLengthAndNeverRepeats() throws {
        #expect(try SecureRandom.bytes(0) == [])
        #expect(try SecureRandom.bytes(1).count == 1)
        #expect(try SecureRandom.bytes(1000).count == 1000)
        var seen = Set<[UInt8]>()
        for _ in 0..<1000 { seen.insert(try SecureRandom.bytes(16)) }
        #expect(seen.count == 1000)
        #expect(Set(try SecureRandom.bytes(4096)).count > 200, "4 KiB of random bytes use most byte values")
        #expect(throws: CryptoError.self) { try SecureRandom.bytes(-1) }
    }
}
