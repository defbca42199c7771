/// Reads a latitude or longitude as people write it: decimal degrees (`44.4200`, `-122.15`,
/// `44,42` with a decimal comma) or degrees, minutes and seconds (`44°25'12"N`, `N 44 25 12.5`,
/// `122° 9.5′ W`).
///
/// The spreadsheet import uses it, and any form that takes a coordinate typed by a person can.
/// Errors are sentences naming the rule and the fix.
public enum CoordinateText {
    /// Which half of a coordinate a text is.
    public enum Axis: Sendable {
        case latitude, longitude

        var name: String { self == .latitude ? "latitude" : "longitude" }
        var limit: Double { self == .latitude ? 90 : 180 }
    }

    /// The value in decimal degrees (negative south and west), or why the text is not one.
    public static func parse(_ text: String, axis: Axis) -> Result<Double, CoreError> {
        let trimmed = text.trimmingCharactersInSet(whitespace)
        let example = axis == .latitude ? "44.4200 or 44°25'12\"N" : "-122.1500 or 122°09'00\"W"
        if trimmed.isEmpty {
            return .failure(
                CoreError.invalidCoordinate(
                    "the \(axis.name) is empty; write it in decimal degrees or degrees, minutes and seconds (\(example))"
                ))
        }
        var scalars = Array(trimmed.unicodeScalars)

        // A hemisphere letter at either end: N S for latitude, E W for longitude.
        var hemisphereSign: Double?
        var wrongHemisphere: Unicode.Scalar?
        func takeHemisphere(_ s: Unicode.Scalar) -> Bool {
            switch s {
            case "N", "n": hemisphereSign = 1
            case "S", "s": hemisphereSign = -1
            case "E", "e": hemisphereSign = 1
            case "W", "w": hemisphereSign = -1
            default: return false
            }
            let isLatitudeLetter = "NnSs".unicodeScalars.contains(s)
            if isLatitudeLetter != (axis == .latitude) {
                wrongHemisphere = s
            }
            return true
        }
        if let last = scalars.last, takeHemisphere(last) {
            scalars.removeLast()
        } else if let first = scalars.first, takeHemisphere(first) {
            scalars.removeFirst()
        }
        if let letter = wrongHemisphere {
            let other = axis == .latitude ? "longitude" : "latitude"
            return .failure(
                CoreError.invalidCoordinate(
                    "'\(trimmed)' ends in \(letter), a \(other) direction, but this is the \(axis.name); are latitude and longitude swapped?"
                ))
        }

        // A sign.
        var sign: Double = 1
        while let first = scalars.first, whitespace.contains(first) { scalars.removeFirst() }
        if let first = scalars.first, first == "-" || first == "+" || first == "\u{2212}" {
            sign = first == "+" ? 1 : -1
            scalars.removeFirst()
        }
        if sign < 0, hemisphereSign != nil {
            return .failure(
                CoreError.invalidCoordinate(
                    "'\(trimmed)' has both a minus sign and a direction letter; keep one: \(example)"))
        }

        // Numbers, separated by degree, minute and second marks or spaces.
        var numbers: [String] = []
        var current = ""
        for s in scalars {
            if ("0"..."9").contains(s) || s == "." {
                current.unicodeScalars.append(s)
            } else if s == "," {
                // A decimal comma (44,28), as spreadsheets in many countries write it.
                current.unicodeScalars.append(".")
            } else if marks.contains(s) || whitespace.contains(s) || s == ":" {
                if !current.isEmpty { numbers.append(current); current = "" }
            } else {
                return .failure(
                    CoreError.invalidCoordinate(
                        "cannot read '\(trimmed)' as a \(axis.name): '\(Character(s))' is not part of a coordinate; write \(example)"
                    ))
            }
        }
        if !current.isEmpty { numbers.append(current) }
        guard (1...3).contains(numbers.count) else {
            return .failure(
                CoreError.invalidCoordinate(
                    "cannot read '\(trimmed)' as a \(axis.name); write decimal degrees or degrees, minutes and seconds: \(example)"
                ))
        }
        var parts: [Double] = []
        for (i, n) in numbers.enumerated() {
            guard let value = Double(n), n.first != ".", n.last != ".", n.filter({ $0 == "." }).count <= 1 else {
                return .failure(
                    CoreError.invalidCoordinate(
                        "cannot read '\(trimmed)' as a \(axis.name): '\(n.replacingOccurrences(of: ".", with: ","))' is not a number; write \(example)"
                    ))
            }
            if i < numbers.count - 1, value != value.rounded() {
                return .failure(
                    CoreError.invalidCoordinate(
                        "in '\(trimmed)' only the last number (degrees, minutes or seconds) may have a fraction"))
            }
            parts.append(value)
        }
        if parts.count > 1, parts[1] >= 60 {
            return .failure(
                CoreError.invalidCoordinate(
                    "in '\(trimmed)' the minutes are \(format(parts[1])); minutes go from 0 to 59"))
        }
        if parts.count > 2, parts[2] >= 60 {
            return .failure(
                CoreError.invalidCoordinate(
                    "in '\(trimmed)' the seconds are \(format(parts[2])); seconds go from 0 to 59.999"))
        }
        var degrees = parts[0]
        if parts.count > 1 { degrees += parts[1] / 60 }
        if parts.count > 2 { degrees += parts[2] / 3600 }
        if parts.count > 1 {
            // Minutes and seconds give repeating fractions: keep 7 decimals (about 1 cm).
            degrees = (degrees * 10_000_000).rounded() / 10_000_000
        }
        let value = degrees * sign * (hemisphereSign ?? 1)
        if abs(value) > axis.limit {
            let hint = axis == .latitude && abs(value) <= 180 ? "; are latitude and longitude swapped?" : ""
            return .failure(
                CoreError.invalidCoordinate(
                    "\(axis.name) \(format(value)) must be between -\(Int(axis.limit)) and \(Int(axis.limit)) degrees\(hint)"
                ))
        }
        return .success(value)
    }

    private static let whitespace: Set<Unicode.Scalar> = [" ", "\t", "\u{A0}", "\u{202F}", "\n", "\r"]
    /// Degree, minute and second marks, including the look-alikes keyboards and word processors produce.
    private static let marks: Set<Unicode.Scalar> = ["°", "º", "˚", "'", "′", "’", "‘", "´", "`", "\"", "″", "”", "“"]

    private static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
    }
}

extension String {
    fileprivate func trimmingCharactersInSet(_ set: Set<Unicode.Scalar>) -> String {
        var s = Substring(self).unicodeScalars
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

extension CoreError {
    /// A text that is not a coordinate: what is wrong and what a coordinate looks like.
    static func invalidCoordinate(_ message: String) -> CoreError {
        CoreError(code: .invalidCoordinate, message: message)
    }
}
