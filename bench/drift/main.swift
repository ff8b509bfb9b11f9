// The drift bend's own cost (bench/drift.sh): CPU seconds per hour of 44.1 kHz stereo audio, straight
// (the first minute of every stream, or a server whose clock matches the DAC's) and bent by 300 ppm.
import Glibc

let rate = 44100
let bend = DriftBend(maxInputFrames: 1024)
var input = [Float](repeating: 0, count: 2048)
for frame in 0..<1024 {
    input[2 * frame] = Float(sin(Double(frame) * 0.05))
    input[2 * frame + 1] = Float(cos(Double(frame) * 0.07))
}

func cpuSecondsPerHour(step: Double, audioSeconds: Int) -> Double {
    bend.step = step
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start)
    var produced = 0
    for _ in 0..<(audioSeconds * rate / 1024) { produced += bend.process(input, frames: 1024) }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &end)
    precondition(produced > 0)
    let cpu = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    return cpu / Double(audioSeconds) * 3600
}

let seconds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 600 : 600
for (name, step) in [("straight (step 1)", 1.0), ("bent by +300 ppm", 1 + 300e-6), ("bent by -300 ppm", 1 - 300e-6)] {
    let cpu = (cpuSecondsPerHour(step: step, audioSeconds: seconds) * 100).rounded() / 100
    print("drift bend, \(name): \(cpu) CPU s per hour of audio")
}
