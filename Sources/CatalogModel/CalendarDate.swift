/// Validation of `YYYY-MM-DD` dates by the proleptic Gregorian calendar.
///
/// Parsed by hand: a `DateFormatter` with `YYYY` reads the week-based year and shifts dates near New Year.
public enum CalendarDate {
    public static func isValid(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-") else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return false }
        guard year >= 1, (1...12).contains(month), day >= 1 else { return false }
        let isLeapYear = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let daysInMonth = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= daysInMonth[month - 1]
    }
}
