import Foundation
import PreviewCore
import PreviewCrypto
import Testing

@Suite struct MD5Tests {
    let crypto = OpenSSLCrypto()

    @Test func md5MatchesTheRFC1321Vectors() throws {
        #expect(Hex.encode(try crypto.md5([])) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(Hex.encode(try crypto.md5(Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(Hex.encode(try crypto.md5(Array("message digest".utf8))) == "f96b697d7cb7938d525a2f31aaf161d0")
        let digits = Array(String(repeating: "1234567890", count: 8).utf8)
        #expect(Hex.encode(try crypto.md5(digits)) == "57edf4a22be3c955ac49da2e2107b67a")
    }

    @Test func theContentMD5OfAnEmptyBodyIsTheWellKnownBase64Value() throws {
        #expect(Data(try crypto.md5([])).base64EncodedString() == "1B2M2Y8AsgTpgAmY7PhCfg==")
    }
}
