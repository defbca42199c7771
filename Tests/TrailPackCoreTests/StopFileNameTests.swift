import Testing
import TrailPackCore
import TrailPackTestSupport

@Suite("StopFileName: one safe path component, or a refusal naming the rule", .ownThreads)
struct StopFileNameTests {
    @Test(
        "ordinary names are kept as given",
        arguments: ["view.jpg", "House Rock 2.MP3", "café.png", "a-b_c.d.vtt", "見晴らし.jpg"])
    func accepted(_ name: String) throws {
        #expect(try StopFileName(name).value == name)
    }

    @Test("a name of exactly 255 bytes is one; 256 is not")
    func longest() {
        #expect(StopFileName.checked(String(repeating: "a", count: 251) + ".jpg") != nil)
        #expect(StopFileName.checked(String(repeating: "a", count: 252) + ".jpg") == nil)
    }

    @Test(
        "names that leave the folder, name a folder, hide, clash or break on some system are refused",
        arguments: [
            "..", ".", "", "../x.jpg", "../../../../../catalog.sqlite", "/etc/passwd", "a/b.jpg", "a\\b.jpg",
            "..\\..\\x.jpg", "C:x.jpg", "x\u{0}.jpg", "x\n.jpg", "x\u{7F}.jpg", "x\u{85}.jpg", ".htaccess",
            ".upload-1234", "waypoint.json", "con", "CON.png", "lpt1.mp3", "view.jpg.", "view.jpg ",
            "e\u{301}.jpg", String(repeating: "a", count: 252) + ".jpg",
        ])
    func refused(_ name: String) {
        #expect(throws: StopFileName.Problem.self) { try StopFileName(name) }
        #expect(StopFileName.checked(name) == nil)
    }

    @Test("each refusal says the rule in words")
    func words() {
        func said(_ name: String) -> String {
            do { _ = try StopFileName(name); return "" } catch { return error.description }
        }
        #expect(said("../../catalog.sqlite").contains("leads out of the stop's folder"))
        #expect(said("photos/view.jpg").contains("has a '/' in it"))
        #expect(said(".hidden.png").contains("starts with a dot"))
        #expect(said("waypoint.json").contains("the stop's own description"))
        #expect(said("nul.txt").contains("reserved device name"))
        #expect(said("e\u{301}.jpg").contains("NFC"))
    }

    @Test("the extension is the part after the last dot, in lowercase")
    func fileExtension() throws {
        #expect(try StopFileName("View.JPG").fileExtension == "jpg")
        #expect(try StopFileName("notes").fileExtension == "")
    }

    @Test("PathText splits on the bytes: hostile text that traps NSString's path methods is split like any other")
    func pathText() {
        #expect(PathText.lastComponent("a/b/c.jpg") == "c.jpg" && PathText.lastComponent("c.jpg") == "c.jpg")
        #expect(PathText.lastComponent("a/") == "" && PathText.folder("a/b/c.jpg") == "a/b")
        #expect(PathText.folder("c.jpg") == "" && PathText.folder("/c.jpg") == "/")
        #expect(PathText.fileExtension("a.b/c.JPG") == "JPG" && PathText.fileExtension(".hidden") == "")
        #expect(PathText.fileExtension("a.b/c") == "" && PathText.droppingExtension("a/c.tar.gz") == "a/c.tar")
        let hostile = "a//.\u{202E}"
        #expect(PathText.lastComponent(hostile) == ".\u{202E}" && PathText.folder(hostile) == "a/")
        #expect(PathText.fileExtension(hostile) == "" && PathText.droppingExtension("//e\u{301}.jpg") == "//e\u{301}")
    }
}
