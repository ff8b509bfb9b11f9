import FoundationEssentials

/// A station's schedule: spins in airtime order.
public struct Schedule: Sendable, Equatable {
    public var spins: [Spin]

    public init(spins: [Spin]) {
        self.spins = spins.sorted { $0.airtime < $1.airtime }
    }

    /// The spins whose message has not ended at `date`, in airtime order.
    public func current(at date: Date) -> [Spin] {
        spins.filter { $0.endtime > date }
    }

    /// The spin heard at `date`; of overlapping spins, the one that started last.
    public func nowPlaying(at date: Date) -> Spin? {
        spins.last { $0.airtime <= date && date < $0.endtime }
    }
}

/// A spin the decoder had to leave out, and why.
public struct DroppedSpin: Sendable, Equatable, CustomStringConvertible {
    /// The spin's `id` when it could be read, else its position in the array.
    public var spin: String
    /// The JSON path of the field at fault, e.g. `audioBlock.durationMS`.
    public var field: String
    public var reason: String

    public var description: String { "dropped spin \(spin): \(field): \(reason)" }
}

/// What went wrong with a schedule as a whole.
public enum ScheduleError: Error, Equatable, CustomStringConvertible {
    case notJSON(String)
    case notAnArray

    public var description: String {
        switch self {
        case .notJSON(let detail): "schedule is not valid JSON: \(detail)"
        case .notAnArray: "schedule is not a JSON array of spins"
        }
    }
}

extension Schedule {
    /// Decodes the API's JSON array of spins. Unlike the reference, a malformed spin does not sink the
    /// schedule: it is dropped and named in `dropped`, and the rest plays.
    public static func decode(_ data: Data) throws(ScheduleError) -> (schedule: Schedule, dropped: [DroppedSpin]) {
        let entries: [LenientSpin]
        do {
            entries = try JSONDecoder().decode([LenientSpin].self, from: data)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .notAnArray
        } catch {
            throw .notJSON(Self.describe(error))
        }
        var spins: [Spin] = []
        var dropped: [DroppedSpin] = []
        for (index, entry) in entries.enumerated() {
            switch entry.result {
            case .success(let spin):
                if spin.audioBlock.downloadURL == nil {
                    dropped.append(DroppedSpin(spin: spin.id, field: "audioBlock.downloadUrl", reason: "missing"))
                } else {
                    spins.append(spin)
                }
            case .failure(let problem):
                dropped.append(DroppedSpin(
                    spin: problem.spinID ?? "#\(index)", field: problem.field, reason: problem.reason))
            }
        }
        let schedule = Schedule(spins: spins)
        guard schedule.spins.count > maximumSpins else { return (schedule, dropped) }
        // The earliest are kept: they are the ones about to play, and the next fetch brings the rest.
        let excess = schedule.spins.count - maximumSpins
        dropped.append(DroppedSpin(spin: "\(excess) spins from \(schedule.spins[maximumSpins].id) on", field: "(schedule)",
                                   reason: "a schedule holds at most \(maximumSpins) spins; the earliest are kept"))
        return (Schedule(spins: Array(schedule.spins.prefix(maximumSpins))), dropped)
    }

    /// A day of radio is a few hundred spins; past this a schedule is hostile or broken, and each spin kept
    /// costs the player work at every pass.
    public static let maximumSpins = 5000

    static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "\(error)" }
        switch decodingError {
        case .dataCorrupted(let context): return context.debugDescription
        default: return "\(decodingError)"
        }
    }
}

/// One array element: a spin, or what was wrong with it.
private struct LenientSpin: Decodable {
    struct Problem: Error {
        var spinID: String?
        var field: String
        var reason: String
    }

    private struct IDKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    let result: Result<Spin, Problem>

    init(from decoder: any Decoder) throws {
        let spinID = try? decoder.container(keyedBy: IDKey.self).decode(String.self, forKey: IDKey(stringValue: "id"))
        do {
            result = .success(try Spin(from: decoder))
        } catch let error as DecodingError {
            result = .failure(Self.problem(error, spinID: spinID, base: decoder.codingPath.count))
        } catch {
            // JSONDecoder's own errors (a number no Swift type holds) name no field; still only this spin goes.
            result = .failure(Problem(spinID: spinID, field: "(spin)", reason: "\(error)"))
        }
    }

    private static func problem(_ error: DecodingError, spinID: String?, base: Int) -> Problem {
        func path(_ codingPath: [any CodingKey], appending key: (any CodingKey)? = nil) -> String {
            let keys = Array(codingPath.dropFirst(base)) + (key.map { [$0] } ?? [])
            let parts = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return parts.isEmpty ? "(spin)" : parts.joined(separator: ".").replacing(".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return Problem(spinID: spinID, field: path(context.codingPath, appending: key), reason: "missing")
        case .valueNotFound(let type, let context):
            return Problem(spinID: spinID, field: path(context.codingPath), reason: "null where \(type) is required")
        case .typeMismatch(let type, let context):
            return Problem(spinID: spinID, field: path(context.codingPath), reason: "expected \(type)")
        case .dataCorrupted(let context):
            return Problem(spinID: spinID, field: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return Problem(spinID: spinID, field: "(spin)", reason: "\(error)")
        }
    }
}
