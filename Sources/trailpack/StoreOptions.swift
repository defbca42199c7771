import ArgumentParser
import TrailPackServer

/// Where the catalog and the packages are, for `serve` and `admin` alike: by default in the data
/// folder; a PostgreSQL catalog and an S3-compatible bucket let several servers share them.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A PostgreSQL catalog several servers share: postgres://USER@HOST:PORT/DB (without it, catalog.sqlite in --data).",
            valueName: "url"))
    var catalog: String?

    @Option(
        name: .customLong("catalog-password-file"),
        help: ArgumentHelp(
            "A file whose first line is the PostgreSQL password (without it, the PGPASSWORD environment variable).",
            valueName: "file"))
    var catalogPasswordFile: String?

    @Option(
        help: ArgumentHelp(
            "An S3-compatible bucket for the packages: s3://BUCKET?endpoint=URL&region=REGION (without it, blobs/ in --data).",
            valueName: "url"))
    var blobs: String?

    @Option(
        name: .customLong("blobs-credentials"),
        help: ArgumentHelp(
            "The bucket's keys, in the AWS shared-credentials format (a [default] section with aws_access_key_id and aws_secret_access_key); without it, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.",
            valueName: "file"))
    var blobsCredentials: String?

    @Option(
        name: .customLong("blob-downloads"),
        help: ArgumentHelp(
            "With --blobs: 'stream' sends the bytes through this server (ranges and all); 'redirect' sends phones to a presigned URL of the bucket (which must then allow the visitor app's origin by CORS).",
            valueName: "redirect|stream"))
    var blobDownloads: String = "stream"

    /// The stores these options name; `warn`: say on standard error which secret file others can read
    /// (`serve` says it in its log instead).
    func locations(warn: Bool = true) throws -> StoreLocations {
        var locations = StoreLocations()
        locations.catalog = catalog
        locations.catalogPasswordFile = catalogPasswordFile
        locations.blobs = blobs
        locations.blobsCredentials = blobsCredentials
        guard let downloads = StoreLocations.BlobDownloads(rawValue: blobDownloads) else {
            throw CLIError.usage("--blob-downloads is 'redirect' or 'stream', not '\(blobDownloads)'")
        }
        locations.blobDownloads = downloads
        if catalogPasswordFile != nil && catalog == nil {
            throw CLIError.usage("--catalog-password-file goes with --catalog postgres://…")
        }
        if blobsCredentials != nil && blobs == nil {
            throw CLIError.usage("--blobs-credentials goes with --blobs s3://…")
        }
        if warn {
            CLI.warnOfOpenSecrets([
                (catalogPasswordFile, "--catalog-password-file"), (blobsCredentials, "--blobs-credentials"),
            ])
        }
        return locations
    }
}
