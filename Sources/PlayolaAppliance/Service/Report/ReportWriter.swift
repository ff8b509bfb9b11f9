import FoundationEssentials
import Glibc
import PlayolaEngine
import PlayolaControl
import PlayolaApplianceSupport

/// Keeps `PLAYOLA_REPORT` (playola.service: /run/playola/report.txt) as `ReportSchedule` says: the service's
/// half of `playola-report.txt`. Looks every few seconds; a report that cannot be written is said once in the
/// log and tried again at the next change.
enum ReportWriter {
    static let look: Duration = .seconds(5)

    static var path: String? { getenv("PLAYOLA_REPORT").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }

    static func start(controller: ApplianceController) {
        guard let path else { return }
        let system = CardReport.system()
        Task.detached {
            var schedule = ReportSchedule(started: monotonicSeconds())
            var failed = false
            while true {
                let report = await controller.status()
                if schedule.due(.init(report), now: monotonicSeconds()) {
                    let text = CardReport.text(report, system: system, log: log.recent())
                    do {
                        try WholeFile.write(Data(text.utf8), to: path, mode: 0o640)
                        failed = false
                    } catch {
                        if !failed { log(.warning, "the card's report: \(error)") }
                        failed = true
                    }
                }
                try? await Task.sleep(for: look)
            }
        }
    }
}
