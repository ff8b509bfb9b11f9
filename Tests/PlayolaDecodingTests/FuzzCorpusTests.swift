import PlayolaFuzzTargets
import XCTest

/// The fuzz corpus kept in the repository (seeds and the reproducers of crashes that were fixed) replayed
/// through each target in process: a regression test that runs with the others, without libFuzzer.
final class FuzzCorpusTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/corpus").path

    func testEveryCorpusInputRunsThroughItsTarget() {
        for target in FuzzTarget.allCases {
            let count = CorpusReplay.run(target, paths: [Self.corpus + "/" + target.rawValue])
            XCTAssertGreaterThanOrEqual(count, 2, "\(target.rawValue): the corpus is in Fuzz/corpus/\(target.rawValue)")
        }
    }
}
