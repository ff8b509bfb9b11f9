import CMalloc
import Glibc
import PlayolaEngine
import PlayolaControl
import PlayolaConfig
import PlayolaApplianceSupport

let usage = """
    usage: playola <command> [options]

    commands:
      run                      the service (playola run --help)
      status [--watch]         what the service is doing; --watch: a line at each change, until interrupted
      play [STATION] [--ago D] play a station, or the current one; --ago 1h: as it aired an hour ago
      next, previous           the next or previous configured station
      stop, pause, resume      stop; pause (an interruption); resume at the live position
      volume N                 volume in percent
      bass, treble DB          tone controls in dB, -12 to 12 (0: flat)
                               each prints what now happens; --json prints the service's JSON answer
      check-config [FILE]      validate a config file without playing
      network-config           the config's Wi-Fi as wpa_supplicant's file, at boot (playola network-config --help)
      render                   render a schedule to a WAV file in virtual time (playola render --help)
      update FILE|URL|--check  install a signed firmware update into the other slot (playola update --help)
      version                  print the version

    The config is --config FILE, else \(ConfigLocation.searchDescription) (the first that exists).
    Exit status of the clients: 0 done, 1 the service refused (its reason on standard error), 2 a wrong
    command line, 3 the service could not be reached or did not answer in time.
    The clients find the service's socket from --socket PATH or that config (when it has errors: the last
    good copy the service runs on, --last-good FILE, default \(ConfigKeeper.defaultLastGood)).
    """

/// What a wrong command line of `command` is answered with, after the error.
func help(for command: String?) -> String {
    switch command {
    case "run": RunCommand.help
    case "render": RenderCommand.help
    default: usage
    }
}

// A fixed threshold: every allocation of 128 KiB or more (the voices' rings, 0.7 MiB for 2 s at 44.1 kHz) is
// its own mapping, returned to the system when it is freed. glibc's default raises the threshold to the
// largest block freed so far, after which the rings come from the heap, whose freed space stays resident:
// a day's render grew 0.73 MiB in its second hour, and then stayed there (bench/longrender.sh).
mallopt(M_MMAP_THRESHOLD, 128 * 1024)

let words = Array(CommandLine.arguments.dropFirst())
do {
    switch words.first {
    case "render": exit(try await RenderCommand.run(Array(words.dropFirst())))
    case "run": exit(try await RunCommand.run(Array(words.dropFirst())))
    case "check-config": exit(CheckConfigCommand.run(Array(words.dropFirst())))
    case "network-config": exit(NetworkConfigCommand.run(Array(words.dropFirst())))
    case "update": exit(await UpdateCommand.run(Array(words.dropFirst())))
    case let command? where ClientCommandLine.commands.contains(command):
        if words.contains("--help") {
            Console.out(usage)
            exit(0)
        }
        let client = try ClientCommandLine(words)
        if client.watch { exit(StatusWatch.run(socketPath: client.socketPath, json: client.json)) }
        exit(ControlClient.run(client.request, socketPath: client.socketPath, json: client.json))
    case "version", "--version":
        _ = try Arguments(Array(words.dropFirst()), valued: [], flags: [])
        Console.out("playola \(PlayolaVersion.string)")
    case "help", "--help", "-h": Console.out(usage)
    // Nothing asked is a wrong command line too: a script that lost its argument learns it.
    case nil:
        Console.error(usage)
        exit(ControlClient.Exit.usage)
    case let command?:
        Console.error("playola: unknown command '\(LogField.escaped(command))'\n\(usage)")
        exit(ControlClient.Exit.usage)
    }
} catch let error as UsageError {
    Console.error("playola\(error.namesCommand ? "" : " " + words[0]): \(error)\n\(help(for: words.first))")
    exit(ControlClient.Exit.usage)
} catch {
    Console.error("playola: \(error)")
    exit(1)
}
