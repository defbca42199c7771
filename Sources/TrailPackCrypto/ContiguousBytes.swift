/// A protocol for byte containers, so `update` takes arrays, slices and `Data` alike.
public protocol ContiguousBytes {
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}
extension Array: ContiguousBytes where Element == UInt8 {}
extension ArraySlice: ContiguousBytes where Element == UInt8 {}
extension UnsafeRawBufferPointer: ContiguousBytes {
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(self) }
}
extension String.UTF8View: ContiguousBytes {
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Array(self).withUnsafeBytes(body)
    }
}
