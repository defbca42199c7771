extension JSONSourceIssue {
    /// The issue as a finding about `file`: a warning when it was read past (a byte-order mark, a
    /// trailing comma), else an error with the code of its kind.
    public func finding(file: String) -> Finding {
        let code =
            forgiven
            ? FindingCode.sourceJSONForgiven
            : kind.findingCode ?? .jsonSyntax
        return Finding(code, file: file, "line \(line), column \(column): \(message)")
    }
}
