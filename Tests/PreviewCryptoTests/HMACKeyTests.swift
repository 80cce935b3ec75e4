import Foundation
import PreviewCore
import PreviewCrypto
import Testing

/// Prepared HMAC keys (a keyed OpenSSL context copied per message) and the shared RSA signing
/// context: the same bytes as the one-shot operations, from any number of threads.
@Suite struct HMACKeyTests {
    let crypto = OpenSSLCrypto()

    @Test(arguments: DigestTests.rfc4231.indices)
    func aPreparedKeyMatchesRFC4231AgainAndAgain(_ index: Int) {
        let vector = DigestTests.rfc4231[index]
        let key = crypto.hmacKey(vector.key)
        for _ in 0..<3 {
            #expect(Hex.encode(key.authenticate(vector.data)) == vector.mac, "case \(vector.name)")
        }
    }

    @Test func aPreparedKeyGivesTheOneShotMACForEveryMessageLength() {
        let key = Array("a bearer-token secret of 32 bytes".utf8)
        let prepared = crypto.hmacKey(key)
        for length in [0, 1, 55, 56, 63, 64, 65, 1000] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(prepared.authenticate(message) == crypto.hmacSHA256(key: key, message: message), "\(length) bytes")
        }
    }

    @Test func onePreparedKeyServesManyThreadsAtOnce() {
        let key = Array("shared-key-shared-key-shared-key".utf8)
        let prepared = crypto.hmacKey(key)
        let messages = (0..<64).map { Array("message \($0)".utf8) }
        let expected = messages.map { crypto.hmacSHA256(key: key, message: $0) }
        let mismatches = Mutexed(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                for (index, message) in messages.enumerated() where prepared.authenticate(message) != expected[index] {
                    mismatches.add(1)
                }
            }
        }
        #expect(mismatches.value == 0)
    }

    @Test func oneRSAKeySignsOnManyThreadsAtOnceWithTheSerialSignature() throws {
        let cli = try OpenSSLCLI()
        try cli.must(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"])
        let key = try RSAPrivateKey(pem: try cli.readText("key.pem"))
        let messages = (0..<8).map { Array("GOOG4-RSA-SHA256\nstring to sign \($0)".utf8) }
        let expected = try messages.map { try key.signSHA256($0) }
        let mismatches = Mutexed(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for (index, message) in messages.enumerated() where (try? key.signSHA256(message)) != expected[index] {
                mismatches.add(1)
            }
        }
        #expect(mismatches.value == 0)
    }
}

/// A counter the concurrent loops above share.
final class Mutexed: @unchecked Sendable {
    // @unchecked Sendable: every access to `count` holds `lock`.
    private let lock = NSLock()
    private var count: Int

    init(_ count: Int) { self.count = count }

    func add(_ amount: Int) { lock.withLock { count += amount } }

    var value: Int { lock.withLock { count } }
}
