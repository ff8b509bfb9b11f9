/// A GPIO line, as its name (needs no chip) or its offset on the chip.
package enum LineRef: Sendable, Hashable, CustomStringConvertible {
    case name(String)
    case offset(Int)

    /// `GPIO17` or `17`. A name must end in a digit, as board line names do (GPIO17, PA7, P9_12): that keeps a
    /// slip like `volume_up = yes` from passing as a line name.
    package init?(parsing text: String) {
        if let offset = ConfigValue.wholeNumber(Substring(text)) {
            self = .offset(offset)
            return
        }
        guard let first = text.first, first.isASCII, first.isLetter, text.last?.isWholeNumber == true,
              text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else { return nil }
        self = .name(text)
    }

    package var description: String {
        switch self {
        case .name(let name): name
        case .offset(let offset): "offset \(offset)"
        }
    }
}
