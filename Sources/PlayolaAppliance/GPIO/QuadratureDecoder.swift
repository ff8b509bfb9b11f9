/// Detents of a mechanical rotary encoder (KY-040 style: one full gray-code cycle of A and B per detent,
/// both contacts open at rest). Every valid transition moves a position a quarter detent either way, and a
/// detent counts only on arriving back at rest at least half a detent away: contact bounce goes back and
/// forth and cancels out, so fast turns lose no detent and chatter adds none.
struct QuadratureDecoder: Sendable {
    /// Indexed by `previous << 2 | next`, a state being `A << 1 | B` with 1 for a closed contact. A leading B
    /// (00 → 10 → 11 → 01 → 00) is +1: clockwise on a KY-040 with CLK as A. 0: no change, or both contacts
    /// changed at once, which says nothing about the direction.
    private static let transitions: [Int] = [
        0, -1, +1, 0,
        +1, 0, 0, -1,
        -1, 0, 0, +1,
        0, +1, -1, 0,
    ]

    private var state: Int
    /// Quarter detents since the last rest.
    private var travel = 0

    init(a: Bool, b: Bool) {
        state = Self.state(a, b)
    }

    /// The contacts now; +1 or -1 when that completes a detent, else 0.
    mutating func update(a: Bool, b: Bool) -> Int {
        let next = Self.state(a, b)
        travel += Self.transitions[state << 2 | next]
        state = next
        guard state == 0 else { return 0 }
        defer { travel = 0 }
        // ±2, not ±4: a transition lost to the kernel's event queue still leaves the direction clear.
        return travel >= 2 ? 1 : travel <= -2 ? -1 : 0
    }

    private static func state(_ a: Bool, _ b: Bool) -> Int { (a ? 2 : 0) | (b ? 1 : 0) }
}
