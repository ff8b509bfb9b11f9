import Glibc
import PlayolaEngine

let usage = """
    usage: playola <command> [options]

    commands:
      render     render a schedule to a WAV file in virtual time (playola render --help)
      version    print the version
    """

let words = Array(CommandLine.arguments.dropFirst())
do {
    switch words.first {
    case "render": exit(try await RenderCommand.run(Array(words.dropFirst())))
    case "version", "--version": Console.out("playola \(PlayolaVersion.string)")
    case nil, "help", "--help", "-h": Console.out(usage)
    case let command?:
        Console.error("playola: unknown command '\(command)'\n\(usage)")
        exit(2)
    }
} catch let error as UsageError {
    Console.error("playola: \(error)")
    exit(2)
} catch {
    Console.error("playola: \(error)")
    exit(1)
}
