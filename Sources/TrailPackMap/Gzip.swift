internal import CZlib
import TrailPackCore

/// gzip through zlib, bounded: PMTiles directories and metadata.
public enum Gzip {
    /// Inflates a gzip stream, refusing to produce more than `limit` bytes. Throws `code` with a
    /// message naming `what` when the data is corrupt, truncated, followed by junk or too large.
    /// The corresponding C functions are zlib's `inflateInit2`, `inflate` and `inflateEnd`.
    static func decompress(_ input: [UInt8], limit: Int, what: String, code: FindingCode) throws(MapError) -> [UInt8] {
        var stream = z_stream()
        guard trailpack_inflate_init_gzip(&stream) == Z_OK else {
            throw MapError.io("zlib could not start (out of memory)")
        }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        let chunk = 64 << 10
        var buffer = [UInt8](repeating: 0, count: chunk)
        var status: Int32 = Z_OK
        var failure: MapError?
        input.withUnsafeBytes { inp in
            stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(inp.count)
            buffer.withUnsafeMutableBytes { buf in
                while true {
                    stream.next_out = buf.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(chunk)
                    status = inflate(&stream, Z_NO_FLUSH)
                    let got = chunk - Int(stream.avail_out)
                    if out.count + got > limit {
                        failure = MapError(code, "\(what) inflates to more than the limit of \(limit) bytes")
                        return
                    }
                    out += UnsafeRawBufferPointer(rebasing: buf[0..<got])
                    if status == Z_STREAM_END { return }
                    if status == Z_BUF_ERROR && stream.avail_in == 0 {
                        failure = MapError(code, "\(what) is cut short: its gzip stream has no end")
                        return
                    }
                    if status != Z_OK && status != Z_BUF_ERROR {
                        let m = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                        failure = MapError(code, "\(what) is corrupt: \(m)")
                        return
                    }
                }
            }
        }
        if let failure { throw failure }
        if stream.avail_in != 0 {
            throw MapError(code, "\(what) has \(stream.avail_in) bytes after the end of its gzip stream")
        }
        return out
    }

    /// The first `maxBytes` bytes (or fewer) a gzip stream inflates to, for telling what a
    /// compressed tile is; nil when the stream is corrupt. Reads no more than it needs.
    /// The corresponding C functions are zlib's `inflateInit2`, `inflate` and `inflateEnd`.
    package static func head(ofGzip input: [UInt8], maxBytes: Int) -> [UInt8]? {
        guard maxBytes > 0 else { return [] }
        var stream = z_stream()
        guard trailpack_inflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: maxBytes)
        let status = input.withUnsafeBytes { inp in
            out.withUnsafeMutableBytes { buf in
                stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(inp.count)
                stream.next_out = buf.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(buf.count)
                return inflate(&stream, Z_SYNC_FLUSH)
            }
        }
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { return nil }
        return Array(out[0..<(maxBytes - Int(stream.avail_out))])
    }

    /// Compresses `input` as one gzip member (level 9, no name, time 0: the same bytes every time).
    /// The corresponding C functions are zlib's `deflateInit2`, `deflate` and `deflateEnd`.
    public static func compress(_ input: [UInt8]) throws(MapError) -> [UInt8] {
        var stream = z_stream()
        guard trailpack_deflate_init_gzip(&stream, 9) == Z_OK else {
            throw MapError.io("zlib could not start (out of memory)")
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count))) + 32
        var out = [UInt8](repeating: 0, count: bound)
        let produced: Int = input.withUnsafeBytes { inp in
            out.withUnsafeMutableBytes { o in
                stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(inp.count)
                stream.next_out = o.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(bound)
                let status = deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate with a deflateBound-sized buffer must finish")
                return bound - Int(stream.avail_out)
            }
        }
        return Array(out.prefix(produced))
    }
}
