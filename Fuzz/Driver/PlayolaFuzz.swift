import CFuzzerDriver
import Glibc
import PlayolaFuzzTargets

/// `playola-fuzz TARGET FILE|FOLDER…` replays inputs (a corpus, a crash reproducer) through a fuzz target.
/// Built with `-sanitize=fuzzer -DFUZZING` (Fuzz/run), `playola-fuzz TARGET [libFuzzer flags and folders]`
/// hands the target to libFuzzer instead.
@main
enum PlayolaFuzz {
    static func main() {
        var arguments = CommandLine.arguments
        // The target is the first argument; libFuzzer's child processes (-fork, -jobs) find it in the environment.
        let named = arguments.count > 1 ? FuzzTarget(rawValue: arguments[1]) : nil
        guard let target = named ?? getenv("PLAYOLA_FUZZ_TARGET").flatMap({ FuzzTarget(rawValue: String(cString: $0)) }),
              arguments.count > 1 else {
            complain("usage: playola-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE|FOLDER…")
            exit(2)
        }
        if named != nil { arguments.remove(at: 1) }
        #if FUZZING
        selected = target
        setenv("PLAYOLA_FUZZ_TARGET", target.rawValue, 1)
        // faad2 allocates and zeroes a few hundred KB per decoder; keeping freed memory in the process (rather
        // than returning it to the kernel at every input) more than doubles the executions a second.
        mallopt(M_TRIM_THRESHOLD, 256 << 20)
        mallopt(M_MMAP_THRESHOLD, 64 << 20)
        exit(runLibFuzzer(arguments))
        #else
        let count = CorpusReplay.run(target, paths: Array(arguments.dropFirst()))
        print("\(target.rawValue): replayed \(count) inputs")
        #endif
    }
}

#if FUZZING
/// Set once, before libFuzzer starts calling back on this thread.
nonisolated(unsafe) private var selected = FuzzTarget.mp4

private func runLibFuzzer(_ arguments: [String]) -> Int32 {
    var argc = Int32(arguments.count)
    var cStrings = arguments.map { strdup($0) } + [nil]
    return cStrings.withUnsafeMutableBufferPointer { buffer in
        var argv = buffer.baseAddress
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            selected.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
            return 0
        }
    }
}
#endif

/// Writes a line to standard error (fd 2: the C `stderr` global is shared mutable state to Swift 6).
private func complain(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}
