import Testing
import TrailPackTestSupport

@testable import TrailPackS3

@Suite("S3 XML", .ownThreads)
struct S3XMLTests {
    func parse(_ text: String) throws -> XMLElement { try S3XML.parse(Array(text.utf8)) }

    @Test func aListingWithEntitiesInKeys() throws {
        let root = try parse(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>
              <IsTruncated>true</IsTruncated>
              <Contents><Key>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;.zip</Key><Size>12</Size>
                <ETag>&#34;5d41402abc4b2a76b9719d911017c592&#34;</ETag></Contents>
              <Contents><Key>&#x65E5;&#26412;/&#x1F97E;.zip</Key><Size>0</Size></Contents>
              <Contents><Key><![CDATA[raw <cdata> & stuff]]></Key><Size>3</Size></Contents>
              <!-- a comment -->
              <NextContinuationToken>tok/en+=</NextContinuationToken>
            </ListBucketResult>
            """)
        #expect(root.name == "ListBucketResult")
        let contents = root.children("Contents")
        #expect(contents.map { $0.text(of: "Key") } == ["a & b <c> \"d\" 'e'.zip", "日本/🥾.zip", "raw <cdata> & stuff"])
        #expect(contents.first?.text(of: "ETag") == "\"5d41402abc4b2a76b9719d911017c592\"")
        #expect(root.text(of: "NextContinuationToken") == "tok/en+=")
    }

    @Test func selfClosingElementsAttributesAndPrefixes() throws {
        let root = try parse("<a:Root xmlns:a='x' b=\"1\"><Empty/><Other x='&gt;' ></Other></a:Root>")
        #expect(root.name == "Root")
        #expect(root.children.map(\.name) == ["Empty", "Other"])
        #expect(root.child("Empty")?.text == "")
    }

    @Test(arguments: [
        ("", "no root element"),
        ("<a>", "is not closed"),
        ("<a></b>", "</b> closes <a>"),
        ("<a>&unknown;</a>", "unknown entity"),
        ("<a>&#0;</a>", "unknown entity"),
        ("<a>&#xD800;</a>", "unknown entity"),
        ("<a>AT&T</a>", "'&' does not start an entity"),
        ("<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>", "document type declaration"),
        ("<a></a><b></b>", "content after the root element"),
        ("<a><!-- open", "a comment does not end"),
        ("<a x=1></a>", "not quoted"),
        (String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40), "nested too deep"),
    ])
    func malformedDocumentsAreRefused(text: String, expected: String) {
        let error = #expect(throws: XMLError.self) { _ = try parse(text) }
        #expect(error?.message.contains(expected) == true, "\(error.map { "\($0)" } ?? "no error")")
    }

    @Test func invalidUTF8InTextIsRefused() {
        #expect(throws: XMLError.self) { _ = try S3XML.parse(Array("<a>".utf8) + [0xFF, 0xFE] + Array("</a>".utf8)) }
    }

    @Test func anErrorBody() throws {
        let root = try parse(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>SignatureDoesNotMatch</Code><Message>The signature does not match.</Message>\
            <Resource>/b/k</Resource></Error>
            """)
        #expect(root.name == "Error")
        #expect(root.text(of: "Code") == "SignatureDoesNotMatch")
    }

    @Test func aListingPageLosesTheLocationsPrefixAndDecodesURLEncodedKeys() async throws {
        let location = try S3Location(parsing: "s3://tours/site/one?endpoint=http://127.0.0.1:9")
        let client = try S3Client(
            location: location, credentials: S3Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret"))
        let operation = S3Client.Operation(name: "list")
        let plain = try parse(
            """
            <ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>next</NextContinuationToken>\
            <Contents><Key>site/one/a &amp; b.zip</Key><Size>7</Size><ETag>"abc"</ETag></Contents></ListBucketResult>
            """)
        #expect(
            try client.page(from: plain, operation)
                == S3ListPage(
                    objects: [S3ObjectSummary(key: "a & b.zip", size: 7, eTag: "abc")], nextContinuationToken: "next"))
        let encoded = try parse(
            "<ListBucketResult><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>"
                + "<Contents><Key>site/one/a%20b%2Bc.zip</Key><Size>0</Size></Contents></ListBucketResult>")
        #expect(try client.page(from: encoded, operation).objects.map(\.key) == ["a b+c.zip"])
        for bad in [
            "<ListBucketResult><Contents><Key>elsewhere/x</Key><Size>1</Size></Contents></ListBucketResult>",
            "<ListBucketResult><Contents><Key>site/one/x</Key><Size>-1</Size></Contents></ListBucketResult>",
            "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
            "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
            "<Other/>",
        ] {
            let error = #expect(throws: S3Error.self) { _ = try client.page(from: parse(bad), operation) }
            #expect(error?.code == .invalidResponse, "\(bad)")
        }
        try await client.shutdown()
    }

    @Test func base64AndHexHelpers() {
        #expect(base64([]) == "")
        #expect(base64(Array("f".utf8)) == "Zg==")
        #expect(base64(Array("fo".utf8)) == "Zm8=")
        #expect(base64(Array("foo".utf8)) == "Zm9v")
        #expect(base64(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(sha256Bytes(hex: String(repeating: "aB", count: 32)) == Array(repeating: 0xAB, count: 32))
        #expect(sha256Bytes(hex: String(repeating: "a", count: 63)) == nil)
        #expect(sha256Bytes(hex: String(repeating: "g", count: 64)) == nil)
    }

    @Test func printableEscapesControlAndBidiCharacters() {
        #expect(printable("a\u{1B}[31mb\u{202E}c\nd") == "a\\u{1b}[31mb\\u{202e}c\\u{a}d")
        #expect(printable(String(repeating: "x", count: 10), limit: 4) == "xxxx…")
    }
}
