import Testing
import TrailPackS3
import TrailPackTestSupport

@Suite("S3 locations", .ownThreads)
struct S3LocationTests {
    @Test func aLocalEndpointWithARegion() throws {
        let location = try S3Location(parsing: "s3://trailpack-blobs?endpoint=http://127.0.0.1:8333&region=us-east-1")
        #expect(location.bucket == "trailpack-blobs")
        #expect(location.region == "us-east-1")
        #expect(location.endpoint.scheme == "http")
        #expect(location.endpoint.host == "127.0.0.1")
        #expect(location.endpoint.port == 8333)
        #expect(location.keyPrefix == "")
        #expect(!location.usesVirtualHost)
        #expect(location.host == "127.0.0.1:8333")
        #expect(location.description == "s3://trailpack-blobs?endpoint=http://127.0.0.1:8333&region=us-east-1")
    }

    @Test func withoutAnEndpointItIsAWSInTheRegion() throws {
        let plain = try S3Location(parsing: "s3://my.bucket-1")
        #expect(plain.region == "us-east-1")
        #expect(plain.endpoint.description == "https://s3.us-east-1.amazonaws.com")
        #expect(plain.host == "s3.us-east-1.amazonaws.com")
        let frankfurt = try S3Location(parsing: "s3://tours?region=eu-central-1&virtualHost=true")
        #expect(frankfurt.endpoint.description == "https://s3.eu-central-1.amazonaws.com")
        #expect(frankfurt.usesVirtualHost)
        #expect(frankfurt.host == "tours.s3.eu-central-1.amazonaws.com")
    }

    @Test func aKeyPrefixEndsWithASlash() throws {
        #expect(try S3Location(parsing: "s3://tours/some/prefix").keyPrefix == "some/prefix/")
        #expect(try S3Location(parsing: "s3://tours/some/prefix/").keyPrefix == "some/prefix/")
        #expect(try S3Location(parsing: "s3://tours/").keyPrefix == "")
        #expect(try S3Location(parsing: "s3://tours/a%20b?region=us-west-2").keyPrefix == "a b/")
    }

    @Test func percentEncodedEndpointsAndIPv6() throws {
        let encoded = try S3Location(parsing: "s3://tours?endpoint=http%3A%2F%2Flocalhost%3A9000")
        #expect(encoded.endpoint.description == "http://localhost:9000")
        let ipv6 = try S3Location(parsing: "s3://tours?endpoint=http://[::1]:8333/")
        #expect(ipv6.endpoint.host == "[::1]")
        #expect(ipv6.host == "[::1]:8333")
        let https = try S3Location(parsing: "s3://tours?endpoint=https://S3.Example.ORG:443")
        #expect(https.host == "s3.example.org")
    }

    @Test func theDescriptionParsesBack() throws {
        for text in [
            "s3://tours", "s3://tours/a b/c", "s3://tours?endpoint=http://127.0.0.1:8333&region=garage",
            "s3://tours?region=eu-west-1&virtualHost=true",
        ] {
            let location = try S3Location(parsing: text)
            #expect(try S3Location(parsing: location.description) == location, "\(text)")
        }
    }

    @Test(arguments: [
        ("trailpack-blobs?endpoint=http://x", "must start with 's3://'"),
        ("s3://ab", "3 to 63 characters"),
        ("s3://" + String(repeating: "a", count: 64), "3 to 63 characters"),
        ("s3://My_Bucket", "'M' at position 1 is not allowed (write it in lowercase)"),
        ("s3://under_score", "'_' at position 6"),
        ("s3://-leading", "starts and ends with a lowercase letter or a digit"),
        ("s3://trailing.", "starts and ends"),
        ("s3://two..dots", "no two dots in a row"),
        ("s3://192.168.5.4", "not an IP address"),
        ("s3://tours?endpoint=ftp://host", "starts with 'http://' or 'https://'"),
        ("s3://tours?endpoint=http://host/path", "no path, query or fragment"),
        ("s3://tours?endpoint=http://user:pw@host", "no user name or password"),
        ("s3://tours?endpoint=http://host:99999", "a port is a number from 1 to 65535"),
        ("s3://tours?endpoint=http://host:", "a port is a number"),
        ("s3://tours?endpoint=http://", "names a host"),
        ("s3://tours?endpoint=http://ho st", "letters, digits, hyphens, underscores and dots"),
        ("s3://tours?region=US_EAST", "region 'US_EAST': a region is lowercase letters"),
        ("s3://tours?region=", "region '': a region"),
        ("s3://tours?virtualHost=yes", "virtualHost is 'true' or 'false'"),
        ("s3://tours?bucket=x", "unknown setting 'bucket'; the settings are endpoint, region and virtualHost"),
        ("s3://tours?region=us-east-1&region=eu-west-1", "'region' is given twice"),
        ("s3://tours//double", "does not start with '/'"),
        ("s3://tours/a//b", "no empty part"),
        ("s3://tours/../up", "no '.' or '..' part"),
        ("s3://tours/a%2", "followed by two hexadecimal digits"),
        ("s3://tours#x", "no '#' fragment"),
    ])
    func badLocationsSayWhichPartBreaksWhichRule(text: String, expected: String) {
        let error = #expect(throws: S3Error.self) { _ = try S3Location(parsing: text) }
        #expect(error?.code == .invalidLocation)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }
}
