import Testing
import TrailPackCrypto
import TrailPackTestSupport

/// The primitives behind minisign signatures (the signatures themselves, with the real minisign,
/// are tested in TrailPackIntegrationTests' SignatureTests).
@Suite("signatures: BLAKE2b and scrypt", .ownThreads)
struct SignaturePrimitivesTests {
    @Test("BLAKE2b: RFC 7693's vector, and our any-length code agrees with OpenSSL's BLAKE2b-512")
    func blake2b() {
        let abc =
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
        let ours = BLAKE2b.digest(Array("abc".utf8), length: 64)
        #expect(ours.map { String(format: "%02x", $0) }.joined() == abc)
        for size in [0, 1, 127, 128, 129, 256, 1000] {
            let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 13) }
            var h = BLAKE2b512()
            h.update(message)
            #expect(h.finalize() == BLAKE2b.digest(message, length: 64), "size \(size)")
        }
        // BLAKE2b-256 is its own function, not a truncation of BLAKE2b-512.
        #expect(BLAKE2b.digest([], length: 32) != Array(BLAKE2b.digest([], length: 64).prefix(32)))
        #expect(
            BLAKE2b.digest([], length: 32).map { String(format: "%02x", $0) }.joined()
                == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
    }

    @Test("a signature file with Windows line ends (CRLF) reads and verifies as the same signature")
    func crlfSignature() throws {
        let key = try Minisign.SecretKey.generate()
        let prehash = BLAKE2b.digest(Array("a package".utf8), length: 64)
        let signature = try Minisign.Signature.sign(prehash: prehash, key: key, trustedComment: "id:x\tversion:1")
        let crlf = signature.fileText.replacingOccurrences(of: "\n", with: "\r\n")
        let read = try Minisign.Signature(fileText: crlf)
        #expect(read == signature)
        #expect(read.verify(prehash: prehash, publicKey: key.publicKeyValue) == .valid)
    }

    @Test("scrypt parameters follow libsodium for minisign's limits")
    func scryptParameters() {
        let large = Scrypt.parameters(opsLimit: 33_554_432, memLimit: 1_073_741_824)
        #expect(large.logN == 20 && large.r == 8 && large.p == 1)
        let small = Scrypt.parameters(opsLimit: 524_288, memLimit: 16_777_216)
        #expect(small.logN == 14 && small.r == 8 && small.p == 1)
    }
}
