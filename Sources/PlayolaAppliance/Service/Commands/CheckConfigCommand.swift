import PlayolaConfig
import PlayolaApplianceSupport
/// `playola check-config [FILE]`: every problem in the config file, without starting anything.
enum CheckConfigCommand {
    static let help = """
        usage: playola check-config [FILE]

        Checks FILE (default: \(ConfigLocation.searchDescription), the first that exists; what
        `playola run` reads) and prints each problem as FILE:LINE: error|warning: MESSAGE.
        Exits 0 when the appliance can start with it (warnings allowed), 1 when it has errors.
        """

    static func run(_ words: [String]) -> Int32 {
        if words.contains(where: { $0 == "--help" || $0 == "-h" }) {
            Console.out(help)
            return 0
        }
        guard words.count <= 1, words.first?.hasPrefix("-") != true else {
            Console.error("playola check-config: expected at most one FILE\n\(help)")
            return 2
        }
        let location = ConfigLocation.resolve(explicit: words.first)
        for (path, reason) in location.unreachable { Console.error("\(path): cannot be looked at (\(reason)); checking \(location.path)") }
        let path = location.path
        let (config, diagnostics) = ApplianceConfig.load(path: path)
        for diagnostic in Diagnostic.bounded(diagnostics) { Console.error(diagnostic.description) }
        guard let config else { return 1 }
        let names = config.stations.map(\.name).joined(separator: ", ")
        let count = config.stations.count == 1 ? "1 station" : "\(config.stations.count) stations"
        Console.out("\(path): OK (\(count): \(names))")
        return 0
    }
}
