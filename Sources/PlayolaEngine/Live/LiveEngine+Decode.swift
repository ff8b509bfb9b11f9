import Dispatch
import FoundationEssentials
import Glibc
import PlayolaMixer
import PlayolaModel
import PlayolaSupport

/// The decode thread: places each spin's voice shortly before it sounds (or joins it at the present),
/// keeps the rings ~2 s ahead, retires finished voices and says so, services the stream, and re-places the
/// whole program from a fresh anchor whenever a device opens.
extension LiveEngine {
    func decodeLoop() {
        let lookahead = Int64(mixRate) * 2
        let margin = Int64(Double(mixRate) * 0.1)
        // The program clock steps to a reading further off than this, and slews to any other (`ProgramClock.follow`):
        // more than the test card's first burst (0.4–0.5 s), less than a stall.
        let jump = Int64(mixRate)
        // A stream whose decoded audio runs low (a lost HLS segment, a slow network) is topped up at the
        // filling pace: what has arrived must not wait half a second in the stream's buffer while its ring
        // runs dry (HLSStreamTests: a lost segment is ridden over).
        let lowStreamFrames = Int(Double(mixRate) * 1.5)
        let placer = SpinPlacer(mixRate: mixRate, openFile: openFile)
        let reporter = PlayReporter(mixRate: mixRate, report: report)
        var feed = StreamFeed()
        while fromControl.running.load(ordering: .acquiring) {
            var hold: StreamHold?
            var streamLow = false
            // A voice just opened holds a second (a quick start); one fading out frees its slot, and lets the
            // device count as quiet (a rewound start, the idle close), only once retired: either is looked at
            // again soon, not at the steady pace.
            var lookSoon = false
            fromDecode.passes.add(1, ordering: .releasing)
            deliverDeviceEvents()
            guard anchorForDevice(&feed) else { continue }
            let cursor = fromRender.framesWritten.load(ordering: .acquiring)
            let reading = currentHeardFrame()
            let (program, programClock, started) = shared.withLock { state in
                if let reading { state.clock!.follow(frame: reading.frame, heardAt: reading.at, jump: jump) }
                return (state.program, state.clock!, state.started)
            }
            // Voices whose spin left the program fade out, then retire; so do voices that played out.
            for index in 0..<slots.capacity where slots.state(index) == VoiceSlots.active {
                switch slots.voice(index) {
                case .stream(let voice):
                    if let held = service(voice, slot: index) {
                        hold = held
                        lookSoon = lookSoon || voice.fadeOutRequested.load(ordering: .relaxed)
                    }
                    streamLow = streamLow || voice.ring.availableToRead < lowStreamFrames
                case .timeline(let voice):
                    // A linear look, not a set made at every pass: the program holds the few spins of the
                    // lookahead, and the set's hashing and allocation were most of a pass's own work.
                    if !program.contains(where: { $0.spin.id == voice.spin.id }) {
                        voice.fadeOutRequested.store(true, ordering: .releasing)
                    }
                    if voice.isSilenced.load(ordering: .acquiring) {
                        slots.retire(index)
                    } else if voice.isPlayedOut {
                        reporter.ended(voice, clock: programClock)
                        slots.retire(index)
                    } else {
                        voice.fill(upTo: cursor - voice.startFrame + lookahead)
                        lookSoon = lookSoon || voice.fadeOutRequested.load(ordering: .relaxed)
                    }
                case nil:
                    break
                }
            }
            slots.collectReleased()
            shared.withLock { $0.streamHold = hold }
            serviceStream(&feed, at: cursor + margin)
            // Place spins that sound within the lookahead and have no voice yet. With every slot taken, a
            // spin is skipped without opening its file (the slots bound the decoders and rings alive at once),
            // and the skipped ones of a pass are reported together.
            var skipped: (first: Spin, at: SpinPlacement, count: Int, clock: ProgramClock)?
            for entry in program where !started.contains(entry.spin.id) {
                guard let file = entry.file else { continue }
                let earliest = earliestStart(cursor: cursor, margin: margin)
                guard let placement = placer.place(entry.spin, clock: programClock, window: earliest.frame..<cursor + lookahead) else { continue }
                shared.withLock { _ = $0.started.insert(entry.spin.id) }
                guard slots.hasFree else {
                    skipped = (skipped?.first ?? entry.spin, skipped?.at ?? placement, (skipped?.count ?? 0) + 1, skipped?.clock ?? programClock)
                    continue
                }
                open(entry.spin, file: file, at: placement, replacingSilence: earliest.replacesSilence, placer: placer,
                     reporter: reporter, clock: programClock)
                lookSoon = true
            }
            if let skipped {
                reporter.skipped(first: skipped.first, at: skipped.at, count: skipped.count, capacity: slots.capacity, clock: skipped.clock)
            }
            let filling = feed.connection != nil && feed.sounding == nil && !feed.failed
            let interval = filling || streamLow || lookSoon ? fillingInterval : feed.connection != nil ? streamInterval : decodeInterval
            _ = decodeWake.wait(timeout: .now() + interval)
        }
    }

    /// True when the program is placed against the open device (with a clock anchored on it). No device, or
    /// a new one: what was playing belongs to the past; it is retired, and once the new device has taken a
    /// first block the program is placed again from a fresh anchor. A stream's buffer is stale by then: its
    /// connection is given up, and the player makes a fresh one.
    private func anchorForDevice(_ feed: inout StreamFeed) -> Bool {
        let device = fromRender.deviceGeneration.load(ordering: .acquiring)
        let isOpen = fromRender.deviceOpen.load(ordering: .acquiring)
        // No clock yet also counts as unplaced: the render thread marks the device open before it bumps
        // the generation, so a pass between the two sees an open device of the generation already placed.
        guard !isOpen || shared.withLock({ device != $0.placedForDevice || $0.clock == nil }) else { return true }
        for index in 0..<slots.capacity where slots.state(index) == VoiceSlots.active { slots.retire(index) }
        abandon(&feed)
        slots.collectReleased()
        guard isOpen, fromRender.heardMicros.load(ordering: .acquiring) > 0 else {
            usleep(isOpen ? 5_000 : 100_000) // no device: nothing to do until it is back
            return false
        }
        guard let reading = currentHeardFrame() else { return false }
        shared.withLock {
            $0.started.removeAll()
            $0.clock = ProgramClock(rate: mixRate, frame: reading.frame, heardAt: reading.at)
            $0.placedForDevice = device
        }
        return true
    }

    /// The mix frame heard right now, extrapolated from the render thread's last reading.
    private func currentHeardFrame() -> (frame: Int64, at: Date)? {
        let micros = fromRender.heardMicros.load(ordering: .acquiring)
        guard micros > 0 else { return nil }
        let frame = fromRender.heardFrame.load(ordering: .relaxed)
        let elapsed = monotonicSeconds() - Double(micros) / 1e6
        return (frame + Int64(elapsed * Double(mixRate)), clock.now())
    }

    /// Where a spin placed now may begin: `margin` after the last frame written, which leaves time to open
    /// it — or, while the device holds only silence at its end, soon after the first frame it can still take
    /// back, so that a start from silence is heard at once (`rewindTo`).
    private func earliestStart(cursor: Int64, margin: Int64) -> (frame: Int64, replacesSilence: Bool) {
        let quiet = fromRender.quietFrom.load(ordering: .acquiring)
        let replaceable = fromRender.replaceableFrom.load(ordering: .acquiring)
        guard quiet <= cursor, replaceable < cursor else { return (cursor + margin, false) }
        // The device plays on while the file opens and the render thread finishes its write; a rewind that
        // comes short is safe (the voice skips what it missed, on the same sample grid), only later.
        let guardFrames = Int64(mixRate / 25)
        let frame = max(quiet, replaceable + guardFrames)
        return frame < cursor + margin ? (frame, true) : (cursor + margin, false)
    }

    private func open(
        _ spin: Spin, file: String, at placement: SpinPlacement, replacingSilence: Bool, placer: SpinPlacer,
        reporter: PlayReporter, clock: ProgramClock
    ) {
        do {
            let voice = try placer.voice(for: spin, file: file, at: placement)
            voice.fill(upTo: placement.joinFrame + Int64(mixRate))
            // Asked before the voice is in a slot: the render thread acts on it once it sees the voice.
            let firstFrame = placement.startFrame + placement.joinFrame
            let rewinding = replacingSilence && firstFrame < fromRender.framesWritten.load(ordering: .acquiring)
            if rewinding { fromDecode.rewindTo.min(firstFrame, ordering: .acquiringAndReleasing) }
            guard slots.add(.timeline(voice)) else {
                fromDecode.rewindTo.store(.max, ordering: .releasing)
                return reporter.failed(spin, at: placement, clock: clock, "too many overlapping spins")
            }
            if rewinding { renderWake.signal() } // the render thread takes the request now, not at its next period
            reporter.started(spin, at: placement, clock: clock)
        } catch {
            reporter.failed(spin, at: placement, clock: clock, "\(error)")
        }
    }
}
