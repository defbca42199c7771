/// Failures of the builder that are not findings about the tour: I/O and misuse.
public enum BuildError: Error, Sendable, CustomStringConvertible, Equatable {
    case io(String)
    case usage(String)

    public var description: String {
        switch self {
        case .io(let m), .usage(let m): m
        }
    }
}
