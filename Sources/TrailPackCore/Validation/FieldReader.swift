/// Reads typed fields out of parsed JSON, collecting a finding for every missing,
/// mistyped or unknown field instead of stopping at the first.
package struct FieldReader: Sendable {
    /// The findings collected so far.
    package var findings: [Finding] = []
    /// The paths of the fields reported missing or of the wrong type: the values that stand in for
    /// them are not to be judged again (one cause, one finding).
    package private(set) var unreadable: Set<JSONPath> = []

    /// Records that the field at `path` cannot be read, so that what stands in for it is not judged again.
    package mutating func markUnreadable(_ path: JSONPath) { unreadable.insert(path) }

    /// A reader with no findings yet.
    package init() {}

    /// `value` as an object, or a finding at `path`.
    package mutating func object(_ value: JSONValue?, at path: JSONPath, required: Bool = true) -> [JSONMember]? {
        guard let value else {
            if required { missing(path) }
            return nil
        }
        guard case .object(let members) = value else {
            wrongType(path, expected: "an object ({ ... })", got: value)
            return nil
        }
        return members
    }

    /// Reports every member of `members` that is not in `known`.
    package mutating func rejectUnknown(_ members: [JSONMember], at path: JSONPath, known: [String]) {
        for member in members where !known.contains(member.key) {
            let suggestion = Spelling.closest(to: member.key, among: known).map { "; did you mean '\($0)'?" } ?? ""
            findings.append(
                Finding(
                    .manifestUnknownField, path: path.member(member.key),
                    "'\(member.key)' is not a field here (allowed: \(known.joined(separator: ", ")))\(suggestion)"))
        }
    }

    /// The string member `key` of `members`, or a finding at `path` when it is missing (and `required`) or not a string.
    package mutating func string(
        _ members: [JSONMember], _ key: String, at path: JSONPath, required: Bool = true
    ) -> String? {
        // The path is made only for a finding: most fields have none.
        func p() -> JSONPath { path.member(key) }
        guard let value = members.first(where: { $0.key == key })?.value else {
            if required { missing(p()) }
            return nil
        }
        guard case .string(let s) = value else {
            wrongType(p(), expected: "a string in quotes", got: value)
            return nil
        }
        return s
    }

    /// The number member `key` of `members` as a `Double`, or a finding at `path`.
    package mutating func double(_ members: [JSONMember], _ key: String, at path: JSONPath) -> Double? {
        // The path is made only for a finding: most fields have none.
        func p() -> JSONPath { path.member(key) }
        guard let value = members.first(where: { $0.key == key })?.value else { missing(p()); return nil }
        guard case .number(let n) = value, let d = n.double else {
            wrongType(p(), expected: "a number (decimal degrees, without quotes)", got: value)
            return nil
        }
        return d
    }

    /// The whole-number member `key` of `members` (no fraction, no exponent), or a finding at `path`.
    package mutating func integer(
        _ members: [JSONMember], _ key: String, at path: JSONPath, required: Bool = true
    ) -> Int64? {
        // The path is made only for a finding: most fields have none.
        func p() -> JSONPath { path.member(key) }
        guard let value = members.first(where: { $0.key == key })?.value else {
            if required { missing(p()) }
            return nil
        }
        guard case .number(let n) = value, let i = n.int64 else {
            wrongType(p(), expected: "a whole number without a fraction or exponent", got: value)
            return nil
        }
        return i
    }

    /// The array member `key` of `members`, or a finding at `path`.
    package mutating func array(
        _ members: [JSONMember], _ key: String, at path: JSONPath, required: Bool = true
    ) -> [JSONValue]? {
        // The path is made only for a finding: most fields have none.
        func p() -> JSONPath { path.member(key) }
        guard let value = members.first(where: { $0.key == key })?.value else {
            if required { missing(p()) }
            return nil
        }
        guard case .array(let items) = value else {
            wrongType(p(), expected: "a list ([ ... ])", got: value)
            return nil
        }
        return items
    }

    /// `value` as a `{ "latitude": …, "longitude": … }` object in range, or findings at `path`.
    package mutating func coordinate(_ value: JSONValue?, at path: JSONPath) -> Coordinate? {
        guard let members = object(value, at: path) else { return nil }
        rejectUnknown(members, at: path, known: ["latitude", "longitude"])
        let lat = double(members, "latitude", at: path)
        let lon = double(members, "longitude", at: path)
        guard let lat, let lon else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// The `site` object: `{ "id": ..., "name": ... }` (empty strings for what is missing).
    package mutating func site(_ members: [JSONMember]) -> Site {
        let path = JSONPath.root.member("site")
        guard let site = object(members.first(where: { $0.key == "site" })?.value, at: path) else {
            return Site(id: "", name: "")
        }
        rejectUnknown(site, at: path, known: ["id", "name"])
        return Site(id: string(site, "id", at: path) ?? "", name: string(site, "name", at: path) ?? "")
    }

    /// The `bounds` object with its two corners; nil when missing (reported if `required`) or unreadable.
    package mutating func bounds(_ members: [JSONMember], required: Bool) -> Bounds? {
        bounds(members, at: .root, required: required)
    }

    /// The `bounds` object of the object at `path` (`.root` for the top level).
    package mutating func bounds(_ members: [JSONMember], at path: JSONPath, required: Bool = true) -> Bounds? {
        let p = path.member("bounds")
        guard let b = object(members.first(where: { $0.key == "bounds" })?.value, at: p, required: required) else {
            return nil
        }
        rejectUnknown(b, at: p, known: ["southwest", "northeast"])
        let sw = coordinate(b.first(where: { $0.key == "southwest" })?.value, at: p.member("southwest"))
        let ne = coordinate(b.first(where: { $0.key == "northeast" })?.value, at: p.member("northeast"))
        guard let sw, let ne else { return nil }
        return Bounds(southwest: sw, northeast: ne)
    }

    /// Takes in what `other` found (after what this reader found).
    package mutating func append(_ other: FieldReader) {
        findings += other.findings
        unreadable.formUnion(other.unreadable)
    }

    /// Records that the required field at `path` is missing.
    package mutating func missing(_ path: JSONPath) {
        unreadable.insert(path)
        findings.append(Finding(.manifestMissingField, path: path, "the required field '\(path)' is missing; add it"))
    }

    /// Records that the field at `path` is not of the `expected` type.
    package mutating func wrongType(_ path: JSONPath, expected: String, got: JSONValue) {
        unreadable.insert(path)
        findings.append(Finding(.manifestWrongType, path: path, "expected \(expected), found \(got.typeDescription)"))
    }
}
