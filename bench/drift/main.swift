// What holding a stream against clock drift costs (bench/drift.sh): CPU seconds per hour of 44.1 kHz stereo
// audio through the drift bend (`clock_hold = resample`), straight (the first minute of every stream, or a
// server whose clock matches the DAC's) and bent by 300 ppm, and through the frame stuffer (`clock_hold = stuff`,
// the default) at 0 and 300 ppm each way.
import Glibc

let rate = 44100
var input = [Float](repeating: 0, count: 2048)
for frame in 0..<1024 {
    input[2 * frame] = Float(sin(Double(frame) * 0.05))
    input[2 * frame + 1] = Float(cos(Double(frame) * 0.07))
}

/// CPU seconds per hour of audio of `process`, called with 1024 frames at a time for `audioSeconds`.
func cpuSecondsPerHour(audioSeconds: Int, _ process: (UnsafePointer<Float>) -> Int) -> Double {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start)
    var produced = 0
    for _ in 0..<(audioSeconds * rate / 1024) { produced += process(input) }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &end)
    precondition(produced > 0)
    let cpu = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    return (cpu / Double(audioSeconds) * 3600 * 100).rounded() / 100
}

let seconds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 600 : 600
for (name, step) in [("straight (step 1)", 1.0), ("bent by +300 ppm", 1 + 300e-6), ("bent by -300 ppm", 1 - 300e-6)] {
    let bend = DriftBend(maxInputFrames: 1024)
    bend.step = step
    let cpu = cpuSecondsPerHour(audioSeconds: seconds) { bend.process($0, frames: 1024) }
    print("drift bend, \(name): \(cpu) CPU s per hour of audio")
}
for (name, correction) in [("no correction", 0.0), ("+300 ppm", 300e-6), ("-300 ppm", -300e-6)] {
    let stuffer = FrameStuffer(maxInputFrames: 1024)
    stuffer.correction = correction
    let cpu = cpuSecondsPerHour(audioSeconds: seconds) { stuffer.process($0, frames: 1024) }
    print("frame stuffer, \(name): \(cpu) CPU s per hour of audio")
}
