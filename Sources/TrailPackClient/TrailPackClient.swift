// One import for an app: the client, and the verifier, reader, model and crypto types it hands out.
@_exported import TrailPackArchive
@_exported import TrailPackCore
@_exported import TrailPackCrypto
@_exported import TrailPackVerifier
