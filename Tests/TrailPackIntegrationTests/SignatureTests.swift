import Foundation
import Testing
import TrailPackCore
import TrailPackCrypto
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

@Suite("signatures, interoperable with minisign", .ownThreads)
struct SignatureTests {
    /// The findings of a `--json` report.
    static func findings(_ json: String) throws -> [JSONValue] {
        try #require(try JSON.parse(json)["findings"]?.array, "no findings in \(json)")
    }

    /// The codes of a `--json` report's findings.
    static func codes(_ json: String) throws -> [String] { try findings(json).compactMap { $0["code"]?.string } }

    static func signedPackage(_ dir: String) throws -> String {
        let pkg = try Support.buildFixture("family-hikes", into: dir)
        #expect(
            try Support.trailpack("keygen", "-s", dir + "/a.key", "-p", dir + "/a.pub", "--unencrypted").status == 0)
        #expect(try Support.trailpack("sign", pkg, "-s", dir + "/a.key").status == 0)
        return pkg
    }

    @Test(
        "both directions with the real minisign: our encrypted key signs in minisign; minisign's signatures verify in trailpack; ours verify in minisign",
        .needs(.minisign))
    func minisignBothWays() throws {
        try Support.withTemporaryDirectory { dir in
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            try "correct horse\n".write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
            let keygen = try Support.trailpack(
                "keygen", "-s", dir + "/t.key", "-p", dir + "/t.pub", "--password-file", dir + "/pw")
            #expect(keygen.status == 0, "\(keygen.stderr)")
            // trailpack signs; minisign verifies.
            #expect(
                try Support.trailpack("sign", pkg, "-s", dir + "/t.key", "--password-file", dir + "/pw").status == 0)
            let v = try Support.run("minisign", ["-Vm", pkg, "-p", dir + "/t.pub"])
            #expect(v.status == 0, "\(v.stdout) \(v.stderr)")
            #expect(v.stdout.contains("sha256:") && v.stdout.contains("id:gov.usda.fs.willamette.family-hikes"))
            // minisign decrypts trailpack's password-protected key and signs; trailpack verifies.
            let copy = dir + "/copy.zip"
            try FileManager.default.copyItem(atPath: pkg, toPath: copy)
            let s = try Support.run(
                "/bin/sh", ["-c", "echo 'correct horse' | minisign -S -s \"$0\" -m \"$1\"", dir + "/t.key", copy])
            #expect(s.status == 0, "\(s.stdout) \(s.stderr)")
            let ours = try Support.trailpack("verify", copy, "--trusted-key", dir + "/t.pub")
            #expect(ours.status == 0, "\(ours.stdout)")
            // minisign's own keys (unencrypted) sign in minisign and in trailpack.
            #expect(try Support.run("minisign", ["-G", "-W", "-p", dir + "/m.pub", "-s", dir + "/m.key"]).status == 0)
            let copy2 = dir + "/copy2.zip"
            try FileManager.default.copyItem(atPath: pkg, toPath: copy2)
            #expect(try Support.run("minisign", ["-S", "-s", dir + "/m.key", "-m", copy2]).status == 0)
            #expect(try Support.trailpack("verify", copy2, "--trusted-key", dir + "/m.pub").status == 0)
            try FileManager.default.removeItem(atPath: copy2 + ".minisig")
            #expect(try Support.trailpack("sign", copy2, "-s", dir + "/m.key").status == 0)
            #expect(try Support.run("minisign", ["-Vm", copy2, "-p", dir + "/m.pub"]).status == 0)
            // A wrong password is refused.
            try "wrong\n".write(toFile: dir + "/bad", atomically: true, encoding: .utf8)
            let wrong = try Support.trailpack(
                "sign", pkg, "-s", dir + "/t.key", "--password-file", dir + "/bad", "-o", dir + "/x.minisig")
            #expect(wrong.status == 2 && wrong.stderr.contains("wrong password"))
        }
    }

    @Test("the secret key is written 0600 whatever the umask, and never appears in any output")
    func secretKeyHygiene() throws {
        try Support.withTemporaryDirectory { dir in
            let out = try Support.run(
                "/bin/sh",
                [
                    "-c", "umask 000 && exec \"$0\" keygen -s \"$1\" -p \"$2\" --unencrypted", Support.binary,
                    dir + "/k.key", dir + "/k.pub",
                ])
            #expect(out.status == 0)
            let mode = try #require(
                try FileManager.default.attributesOfItem(atPath: dir + "/k.key")[.posixPermissions] as? Int)
            #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
            let secretLine = try String(contentsOfFile: dir + "/k.key", encoding: .utf8).split(separator: "\n")[1]
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            let sign = try Support.trailpack("sign", pkg, "-s", dir + "/k.key")
            #expect(sign.status == 0, "\(sign.stderr)")
            for text in [out.stdout, out.stderr, sign.stdout, sign.stderr] {
                #expect(!text.contains(secretLine) && !text.contains(String(secretLine.prefix(20))))
            }
            let again = try Support.trailpack("keygen", "-s", dir + "/k.key", "-p", dir + "/k.pub", "--unencrypted")
            #expect(again.status == 2, "keygen overwrote a key")
        }
    }

    @Test(
        "a tampered package, a tampered trusted comment, a wrong key, a missing or malformed signature are each rejected with their codes"
    )
    func rejections() throws {
        try Support.withTemporaryDirectory { dir in
            let pkg = try Self.signedPackage(dir)
            #expect(try Support.trailpack("verify", pkg, "--trusted-key", dir + "/a.pub").status == 0)
            func report(_ path: String, _ extra: String...) throws -> String {
                let out = try Support.run(
                    Support.binary, ["verify", path, "--trusted-key", dir + "/a.pub", "--json"] + extra)
                #expect(out.status == 1, "\(out.stdout)")
                return out.stdout
            }
            // Tampered package: a byte that changes nothing else (a DOS time), so only the signature can tell.
            var bytes = try Support.read(pkg)
            bytes[10] ^= 0x01
            try Support.write(bytes, to: dir + "/t.zip")
            try FileManager.default.copyItem(atPath: pkg + ".minisig", toPath: dir + "/t.zip.minisig")
            let tampered = try report(dir + "/t.zip")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(tampered.utf8)) as? [String: Any])
            let found = (json["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }
                .compactMap { $0["code"] as? String }
            #expect(found == ["signature.invalid", "signature.threshold"], "\(tampered)")
            // Tampered trusted comment.
            let sig = try String(contentsOfFile: pkg + ".minisig", encoding: .utf8)
            try FileManager.default.copyItem(atPath: pkg, toPath: dir + "/c.zip")
            try sig.replacingOccurrences(of: "version:3", with: "version:4").write(
                toFile: dir + "/c.zip.minisig", atomically: true, encoding: .utf8)
            let altered = try report(dir + "/c.zip")
            #expect(
                try Self.findings(altered).contains {
                    ($0["message"]?.string ?? "").contains("the trusted comment was altered")
                }, "\(altered)")
            // Wrong key.
            #expect(
                try Support.trailpack("keygen", "-s", dir + "/b.key", "-p", dir + "/b.pub", "--unencrypted").status == 0
            )
            let wrong = try Support.trailpack("verify", pkg, "--trusted-key", dir + "/b.pub", "--json")
            #expect(
                try wrong.status == 1 && Self.codes(wrong.stdout).contains("signature.untrusted-key"), "\(wrong.stdout)"
            )
            // Missing and malformed.
            try FileManager.default.copyItem(atPath: pkg, toPath: dir + "/n.zip")
            #expect(try Self.codes(report(dir + "/n.zip")).contains("signature.missing"))
            try "untrusted comment: x\nnot base64\n".write(
                toFile: dir + "/n.zip.minisig", atomically: true, encoding: .utf8)
            #expect(try Self.codes(report(dir + "/n.zip")).contains("signature.malformed"))
        }
    }

    @Test(
        "admin user key: a reviewer's lost key replaced from the command line, then taken away; a secret key, both flags or neither refused"
    )
    func replaceSigningKey() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            for name in ["old", "new"] {
                let made = try Support.trailpack(
                    "keygen", "-s", dir + "/\(name).key", "-p", dir + "/\(name).pub", "--unencrypted")
                #expect(made.status == 0, "\(made.stderr)")
            }
            func admin(_ arguments: String...) throws -> Support.Output {
                try Support.run(Support.binary, ["admin", "--data", data] + arguments)
            }
            #expect(
                try admin("--create", "user", "add", "ken", "--role", "reviewer", "--public-key", dir + "/old.pub")
                    .status == 0)
            let replaced = try admin("user", "key", "ken", "--public-key", dir + "/new.pub")
            #expect(replaced.status == 0 && replaced.stdout.contains("ken has a new signing key"), "\(replaced.stderr)")
            #expect(try admin("user", "list").stdout.contains("signing key"))
            for (arguments, words) in [
                (["user", "key", "ken", "--public-key", dir + "/new.key"], "secret key"),
                (["user", "key", "ken", "--public-key", dir + "/new.pub", "--remove"], "either"),
                (["user", "key", "ken"], "either"),
                (["user", "key", "nobody", "--remove"], "nobody"),
            ] {
                let refused = try Support.run(Support.binary, ["admin", "--data", data] + arguments)
                #expect(refused.status != 0 && refused.stderr.contains(words), "\(arguments): \(refused.stderr)")
            }
            let removed = try admin("user", "key", "ken", "--remove")
            #expect(
                removed.status == 0 && removed.stdout.contains("ken no longer has a signing key"), "\(removed.stderr)")
            #expect(!(try admin("user", "list").stdout.contains("signing key")))
        }
    }

    @Test("a trusted comment naming another id, version or hash is rejected, though validly signed")
    func commentMismatch() throws {
        try Support.withTemporaryDirectory { dir in
            let pkg = try Self.signedPackage(dir)
            let key = try Minisign.SecretKey.parse(
                fileText: try String(contentsOfFile: dir + "/a.key", encoding: .utf8)
            ) { [] }
            let prehash = try Minisign.prehash(path: pkg)
            let signature = try Minisign.Signature.sign(
                prehash: prehash, key: key,
                trustedComment: "timestamp:1\tfile:x.zip\thashed\tid:gov.usda.fs.willamette.family-hikes\tversion:2")
            try signature.fileText.write(toFile: pkg + ".minisig", atomically: true, encoding: .utf8)
            let out = try Support.trailpack("verify", pkg, "--trusted-key", dir + "/a.pub", "--json")
            #expect(
                try out.status == 1 && Self.codes(out.stdout).contains("signature.comment-mismatch"), "\(out.stdout)")
        }
    }

    @Test("thresholds count distinct keys: one signer twice, or one key trusted under two names, counts once")
    func thresholds() throws {
        try Support.withTemporaryDirectory { dir in
            let pkg = try Self.signedPackage(dir)
            try FileManager.default.createDirectory(atPath: dir + "/trusted", withIntermediateDirectories: true)
            for name in ["b", "c"] {
                #expect(
                    try Support.trailpack(
                        "keygen", "-s", dir + "/\(name).key", "-p", dir + "/trusted/\(name).pub", "--unencrypted"
                    ).status == 0)
            }
            try FileManager.default.copyItem(atPath: dir + "/a.pub", toPath: dir + "/trusted/a.pub")
            try FileManager.default.copyItem(atPath: dir + "/a.pub", toPath: dir + "/trusted/a-again.pub")
            // The same signer twice (a second file by key a) does not make two.
            #expect(try Support.trailpack("sign", pkg, "-s", dir + "/a.key", "-o", pkg + ".a2.minisig").status == 0)
            let dup = try Support.trailpack(
                "verify", pkg, "--trusted-key", dir + "/trusted", "--threshold", "2", "--json")
            let threshold = try Self.findings(dup.stdout).first { $0["code"] == .string("signature.threshold") }
            #expect(dup.status == 1 && threshold != nil, "\(dup.stdout)")
            #expect(threshold?["message"]?.string?.contains("found 1") == true, "\(dup.stdout)")
            // A second, distinct reviewer makes two.
            #expect(try Support.trailpack("sign", pkg, "-s", dir + "/b.key", "-o", pkg + ".b.minisig").status == 0)
            let two = try Support.trailpack("verify", pkg, "--trusted-key", dir + "/trusted", "--threshold", "2")
            #expect(two.status == 0, "\(two.stdout)")
            #expect(
                try Support.trailpack("verify", pkg, "--trusted-key", dir + "/trusted", "--threshold", "3").status == 1)
        }
    }

    @Test(
        "the signature check is never turned off without a word: an empty folder of keys, a signature without keys, and a signature that cannot be read are each refused, naming it"
    )
    func noSilentlyEmptyTrust() throws {
        try Support.withTemporaryDirectory { dir in
            let pkg = try Self.signedPackage(dir)
            try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
            // A folder of keys with none in it (a .pub misnamed, a copy not made yet) trusted nobody,
            // and so required nothing: the package passed unsigned.
            for extra in [[String](), ["--threshold", "1"], ["--signature", pkg + ".minisig"]] {
                let empty = try Support.run(Support.binary, ["verify", pkg, "--trusted-key", dir + "/empty"] + extra)
                #expect(empty.status != 0, "an empty folder of keys was taken: \(empty.stdout)")
                #expect(empty.stderr.contains("'\(dir)/empty' holds no trusted keys (*.pub files)"), "\(empty.stderr)")
                #expect(!empty.stdout.contains("valid"), "\(empty.stdout)")
            }
            // A signature named without a key to check it against was ignored.
            let unkeyed = try Support.trailpack("verify", pkg, "--signature", pkg + ".minisig")
            #expect(
                unkeyed.status != 0 && unkeyed.stderr.contains("--signature needs --trusted-key"), "\(unkeyed.stderr)")
            // A signature that is not there: its name and why.
            let missing = try Support.trailpack(
                "verify", pkg, "--trusted-key", dir + "/a.pub", "--signature", dir + "/nosuch.minisig")
            #expect(missing.status != 0)
            #expect(
                missing.stderr.contains("cannot read the signature '\(dir)/nosuch.minisig': No such file or directory"),
                "\(missing.stderr)")
            // The visitor app is never configured with an empty trust either (phones would install unsigned tours).
            // (Under `timeout`: a server that took the folder would otherwise serve until killed.)
            let serve = try Support.run(
                "timeout",
                [
                    "120", Support.binary, "serve", "--data", dir + "/data", "--no-malware-scan",
                    "--visitor-trusted-key", dir + "/empty", "--port", "\(try PostgresServer.freePort())",
                ])
            #expect(serve.status != 0, "the server started with an empty folder of visitor keys")
            #expect(serve.stderr.contains("holds no trusted keys"), "\(serve.stderr)")
            // The same folder with a key in it is trusted as before (its name's case is a copy's, not a rule).
            try FileManager.default.copyItem(atPath: dir + "/a.pub", toPath: dir + "/empty/Reviewer-A.PUB")
            #expect(try Support.trailpack("verify", pkg, "--trusted-key", dir + "/empty").status == 0)
        }
    }

    @Test("rollback: an older version is refused even when validly signed; the same or a newer one passes")
    func rollback() throws {
        try Support.withTemporaryDirectory { dir in
            let pkg = try Self.signedPackage(dir)  // version 3
            let old = try Support.trailpack(
                "verify", pkg, "--trusted-key", dir + "/a.pub", "--last-version", "3.1", "--json")
            #expect(try old.status == 1 && Self.codes(old.stdout).contains("package.rollback"), "\(old.stdout)")
            #expect(
                try Support.trailpack("verify", pkg, "--trusted-key", dir + "/a.pub", "--last-version", "3").status == 0
            )
            #expect(try Support.trailpack("verify", pkg, "--last-version", "2.9").status == 0)
            let manifest = try PackageReader(path: pkg).manifest
            #expect(RollbackGuard.check(manifest: manifest, lastAccepted: "10")?.code == .packageRollback)
            #expect(RollbackGuard.check(manifest: manifest, lastAccepted: "2.10") == nil)
        }
    }
}
