#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that holds a secret (a private key, a token, a password, credentials), and who besides
/// its owner can read it. The rule is PostgreSQL's for its key file: readable by its owner only
/// (0600 or less), or owned by root and readable by one group besides (0640 or less: the Debian
/// package's `chown root:trailpack`).
public enum SecretFile {
    /// Why `path` is too open for a secret, with the command that fixes it, or nil when it is not
    /// (or cannot be looked at: reading it will say why). `option` names it as the user gave it.
    public static func exposure(_ path: String, option: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = UInt32(info.st_mode) & 0o777
        // What others may do: nothing, or (a file of root's) its group may read.
        let refused: UInt32 = info.st_uid == 0 ? 0o037 : 0o077
        guard mode & refused != 0 else { return nil }
        let who = mode & 0o007 != 0 ? "every user of this machine" : "every member of its group"
        let octal = String(mode, radix: 8)
        return
            "\(option) '\(path)' holds a secret that \(who) can read or change (mode 0\(octal)); "
            + "make it its owner's only (chmod 600 '\(path)'), or owned by root and readable by the server's group (chown root:trailpack '\(path)'; chmod 640 '\(path)')"
    }
}
