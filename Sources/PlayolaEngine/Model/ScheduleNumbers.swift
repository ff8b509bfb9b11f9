/// Numbers of a schedule read as Double first: a JSON number too large for the field's type (1e30 for an
/// Int, 1e39 for a Float) otherwise fails inside JSONDecoder with an error that is no DecodingError and
/// names no field, and takes the whole schedule with it.
extension KeyedDecodingContainer {
    /// A whole number of milliseconds within `range`, or a DecodingError naming the field.
    func milliseconds(_ key: Key, in range: ClosedRange<Int>) throws -> Int {
        let value = try number(key, as: Int.self)
        guard value.isFinite, value.rounded() == value, value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\(Self.spelled(value)) is not a whole number of ms in \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(value)
    }

    /// A number of milliseconds saturated into `range` (NaN cannot come from JSON).
    func clampedMilliseconds(_ key: Key, in range: ClosedRange<Int>) throws -> Int {
        let value = try number(key, as: Int.self)
        return Int(min(max(value.rounded(), Double(range.lowerBound)), Double(range.upperBound)))
    }

    /// A gain saturated into 0...1.
    func gain(_ key: Key) throws -> Float {
        Fade.gain(Float(try number(key, as: Float.self))) // 1e39 becomes +inf as a Float, then 1
    }

    /// The number at `key` as a Double; a string or a null is reported as the field's own type being expected.
    private func number<T>(_ key: Key, as type: T.Type) throws -> Double {
        do {
            return try decode(Double.self, forKey: key)
        } catch DecodingError.typeMismatch(_, let context) {
            throw DecodingError.typeMismatch(type, context)
        } catch DecodingError.valueNotFound(_, let context) {
            throw DecodingError.valueNotFound(type, context)
        }
    }

    /// Integers as integers (`200000000000000`, not `2e+14`), so the message shows what the server sent.
    private static func spelled(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 9e18 ? String(Int64(value)) : "\(value)"
    }
}
