/// `90s`, `15m`, `1h`, `2h30m` → seconds; nil unless positive and finite (a digit string too long for a
/// Double would otherwise be infinity).
package func parseDuration(_ text: String) -> Double? {
    var total = 0.0
    var number = ""
    for character in text {
        if character.isASCII && (character.isNumber || character == ".") {
            number.append(character)
        } else {
            guard let value = Double(number) else { return nil }
            switch character {
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            case "d": total += value * 86_400
            default: return nil
            }
            number = ""
        }
    }
    if !number.isEmpty { guard let value = Double(number) else { return nil }; total += value }
    return total > 0 && total.isFinite ? total : nil
}

package enum DurationText {
    /// `30d`, `2h`, `90s`: the largest whole unit, for the ranges named in messages.
    package static func describe(_ seconds: Double) -> String {
        for (unit, size) in [("d", 86_400.0), ("h", 3600), ("m", 60)] where seconds >= size && seconds.truncatingRemainder(dividingBy: size) == 0 {
            return "\(Int(seconds / size))\(unit)"
        }
        return "\(Int(seconds))s"
    }
}
