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
