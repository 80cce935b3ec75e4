import Foundation
import PreviewCrypto
import Testing

@Suite struct RSAPrivateKeyTests {
    let message = Array("GOOG4-RSA-SHA256\n20260101T000000Z\n20260101/auto/storage/goog4_request\nabc".utf8)

    @Test(arguments: [
        ["genrsa", "-traditional", "-out", "key.pem", "2048"],  // PKCS#1
        ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"],
    ])  // PKCS#8
    func signaturesVerifyWithTheOpenSSLTool(_ generate: [String]) throws {
        let cli = try OpenSSLCLI()
        try cli.must(generate)
        let pem = try cli.readText("key.pem")
        #expect(pem.contains(generate[0] == "genrsa" ? "BEGIN RSA PRIVATE KEY" : "BEGIN PRIVATE KEY"))
        try cli.must(["pkey", "-in", "key.pem", "-pubout", "-out", "public.pem"])

        let key = try RSAPrivateKey(pem: pem)
        let signature = try key.signSHA256(message)
        #expect(signature.count == 256)
        try cli.write("message", message)
        try cli.write("signature", signature)
        #expect(try cli.run(["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature", "message"]) == 0)

        try cli.write("other", message + [0x21])
        #expect(try cli.run(["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature", "other"]) != 0)
        #expect(try key.signSHA256(message) == signature, "PKCS#1 v1.5 signatures are deterministic")
    }

    @Test func badPEMThrowsAnErrorCarryingOpenSSLsReason() throws {
        for pem in ["", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"] {
            let error = try #require(throws: CryptoError.self) { try RSAPrivateKey(pem: pem) }
            #expect(error.message.hasPrefix("RSA private key"))
            #expect(error.description.count > 20)
        }
        let error = try #require(throws: CryptoError.self) { try RSAPrivateKey(pem: "junk") }
        #expect(error.message.contains("error:"), "carries OpenSSL's error string: \(error.message)")
        #expect(!error.message.contains(";"), "no stale entries from earlier failures: \(error.message)")
    }

    @Test func encryptedKeyIsRejectedWithoutPromptingForAPassphrase() throws {
        let cli = try OpenSSLCLI()
        try cli.must([
            "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024",
            "-aes256", "-pass", "pass:secret", "-out", "key.pem",
        ])
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: try cli.readText("key.pem")) }
    }

    @Test func anECKeyIsNotAnRSAKey() throws {
        let cli = try OpenSSLCLI()
        try cli.must(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.pem"])
        let error = try #require(throws: CryptoError.self) { try RSAPrivateKey(pem: try cli.readText("ec.pem")) }
        #expect(error.message.contains("another type"))
    }
}

@Suite struct PublicKeyTests {
    let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0".utf8)

    @Test func rsaSignatureFromTheOpenSSLToolVerifies() throws {
        let cli = try OpenSSLCLI()
        try cli.must(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"])
        try cli.must(["pkey", "-in", "key.pem", "-pubout", "-out", "public.pem"])
        try cli.write("message", message)
        try cli.must(["dgst", "-sha256", "-sign", "key.pem", "-out", "signature", "message"])

        let key = try PublicKey(pem: try cli.readText("public.pem"))
        var signature = try cli.read("signature")
        #expect(key.verifySHA256(signature: signature, message: message))
        #expect(!key.verifySHA256(signature: signature, message: message + [0]))
        signature[10] ^= 1
        #expect(!key.verifySHA256(signature: signature, message: message))
        #expect(!key.verifySHA256(signature: [], message: message))

        let ours = try RSAPrivateKey(pem: try cli.readText("key.pem"))
        #expect(key.verifySHA256(signature: try ours.signSHA256(message), message: message))
    }

    @Test func ecdsaP256SignatureFromTheOpenSSLToolVerifiesAsDERAndAsJOSE() throws {
        let cli = try OpenSSLCLI()
        try cli.must(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.pem"])
        try cli.must(["pkey", "-in", "ec.pem", "-pubout", "-out", "public.pem"])
        try cli.write("message", message)
        let key = try PublicKey(pem: try cli.readText("public.pem"))

        // Many signatures, so r or s with a high bit or a leading zero byte come up.
        for round in 0..<40 {
            try cli.must(["dgst", "-sha256", "-sign", "ec.pem", "-out", "signature\(round)", "message"])
            let der = try cli.read("signature\(round)")
            #expect(key.verifySHA256(signature: der, message: message))
            #expect(!key.verifySHA256(signature: der, message: message + [0]))

            let raw = try joseSignature(fromDER: der)
            #expect(
                PublicKey.ecdsaDERSignature(fromRaw: raw) == der, "DER is canonical: re-encoding gives the same bytes")
            #expect(key.verifySHA256(signature: raw, message: message) == false, "raw r||s is not DER")
        }
    }

    @Test func joseConversionRejectsBadLengths() {
        #expect(PublicKey.ecdsaDERSignature(fromRaw: []) == nil)
        #expect(PublicKey.ecdsaDERSignature(fromRaw: [UInt8](repeating: 1, count: 63)) == nil)
        #expect(PublicKey.ecdsaDERSignature(fromRaw: [UInt8](repeating: 1, count: 98)) == nil)
        let zeros = PublicKey.ecdsaDERSignature(fromRaw: [UInt8](repeating: 0, count: 64))
        #expect(zeros == [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00])
        let high = PublicKey.ecdsaDERSignature(fromRaw: [UInt8](repeating: 0x80, count: 64))
        #expect(high?.count == 2 + 2 * (2 + 33))
    }

    @Test func badOrPrivatePEMIsRejected() throws {
        #expect(throws: CryptoError.self) {
            try PublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
        let cli = try OpenSSLCLI()
        try cli.must(["genpkey", "-algorithm", "ED25519", "-out", "ed.pem"])
        try cli.must(["pkey", "-in", "ed.pem", "-pubout", "-out", "ed-public.pem"])
        let error = try #require(throws: CryptoError.self) { try PublicKey(pem: try cli.readText("ed-public.pem")) }
        #expect(error.message.contains("RSA and EC"))
    }
}

/// Test-side DER → JOSE (`r || s`, 32 bytes each), written independently of the code under test.
func joseSignature(fromDER der: [UInt8]) throws -> [UInt8] {
    struct Malformed: Error {}
    guard der.count > 2, der[0] == 0x30, Int(der[1]) == der.count - 2 else { throw Malformed() }
    var index = 2
    var result: [UInt8] = []
    for _ in 0..<2 {
        guard der[index] == 0x02 else { throw Malformed() }
        let length = Int(der[index + 1])
        var integer = Array(der[(index + 2)..<(index + 2 + length)])
        while integer.count > 32, integer.first == 0 { integer.removeFirst() }
        guard integer.count <= 32 else { throw Malformed() }
        result += [UInt8](repeating: 0, count: 32 - integer.count) + integer
        index += 2 + length
    }
    return result
}
