#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A moment in UTC, to the second, as Signature Version 4 writes it: `20130524T000000Z` in
/// `X-Amz-Date`, `20130524` in the credential scope.
public struct AmzDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Int64

    /// The moment `secondsSince1970` seconds after 1970-01-01T00:00:00Z.
    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    /// The moment written `yyyyMMdd'T'HHmmss'Z'` (`20130524T000000Z`), or nil when `text` is not
    /// exactly that, or names no real moment (`20130231T…`).
    public init?(basic text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 16, digits[8] == UInt8(ascii: "T"), digits[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in digits[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
            (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        secondsSince1970 = days * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// Now, from the system's real-time clock. The corresponding C function is `clock_gettime`.
    public static func now() -> AmzDate {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return AmzDate(secondsSince1970: Int64(spec.tv_sec))
    }

    /// `20130524T000000Z`: the form of `X-Amz-Date`.
    public var basic: String {
        let (days, seconds) = secondsSince1970.floorDivided(by: 86_400)
        let (year, month, day) = Self.civilFromDays(days)
        return pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(seconds / 3_600, 2)
            + pad(seconds % 3_600 / 60, 2) + pad(seconds % 60, 2) + "Z"
    }

    /// `20130524`: the day, as in the credential scope.
    public var day: String { String(basic.prefix(8)) }

    /// The same as ``basic``.
    public var description: String { basic }

    /// This moment `seconds` later (earlier when negative).
    public func adding(seconds: Int64) -> AmzDate { AmzDate(secondsSince1970: secondsSince1970 + seconds) }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: AmzDate, rhs: AmzDate) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    // Howard Hinnant's days_from_civil and civil_from_days (proleptic Gregorian calendar).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

extension Int64 {
    /// Quotient and remainder rounded towards minus infinity (the remainder is never negative).
    fileprivate func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
