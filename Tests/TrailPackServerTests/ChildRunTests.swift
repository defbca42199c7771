import Foundation
import Testing

@testable import TrailPackServer

#if canImport(Glibc)
import Glibc
import TrailPackTestSupport
#endif

/// The verifier's and the scanner's children read hostile bytes: nothing the server holds open
/// (its listening socket, NIO's epoll descriptors) may reach them.
@Suite("server: contained children", .ownThreads)
struct ChildRunTests {
    @Test(
        "a child gets /dev/null, its two pipes and nothing else: a descriptor the server left open without close-on-exec is closed in the child"
    )
    func nothingInherited() throws {
        // A listening socket, as NIO leaves its own: not close-on-exec.
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(socketFD > 2)
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(bound == 0 && listen(socketFD, 1) == 0)
        #expect(fcntl(socketFD, F_GETFD) & FD_CLOEXEC == 0, "the test's socket is inherited unless the spawn closes it")
        // The shell's own descriptors: ls lists /proc/$$/fd of the shell, which opens nothing of its own.
        let run = try ChildRun.run(
            arguments: ["/bin/sh", "-c", "ls /proc/$$/fd"], timeout: 20, maxOutput: 1 << 16)
        #expect(run.status == 0, "\(run.stderr)")
        let open = Set(String(decoding: run.stdout, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init))
        #expect(!open.contains(String(socketFD)), "the child holds the server's socket: \(open.sorted())")
        #expect(open.isSuperset(of: ["0", "1", "2"]) && open.count <= 4, "\(open.sorted())")
    }

    @Test(
        "a child that crashes dies at once: Swift's backtracer is turned off in its environment, the rest is the server's"
    )
    func noBacktracer() throws {
        let run = try ChildRun.run(
            arguments: ["/bin/sh", "-c", "echo \"$SWIFT_BACKTRACE|${PATH:+path}\""], timeout: 20, maxOutput: 1 << 16)
        #expect(String(decoding: run.stdout, as: UTF8.self) == "enable=no|path\n")
    }
}
