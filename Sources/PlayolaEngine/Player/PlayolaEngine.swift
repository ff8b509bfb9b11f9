// The appliance, the tests and the fuzz targets import one module, `PlayolaEngine`, the engine's product; its
// layers are modules of their own so that the compiler holds the layering (ARCHITECTURE.md). `@_exported`
// makes each layer's public API part of this module's, so that a client sees one engine whatever layer a
// type lives in, and moving a type between layers never touches the appliance. It is underscored, but it has
// worked unchanged since Swift 5 and is how swift-corelibs-foundation's `Foundation` re-exports
// `FoundationEssentials`; Swift 6.0 has no other way to re-export a module.
@_exported import PlayolaCache
@_exported import PlayolaDecoding
@_exported import PlayolaLive
@_exported import PlayolaMixer
@_exported import PlayolaModel
@_exported import PlayolaNetwork
@_exported import PlayolaOutput
@_exported import PlayolaSchedule
@_exported import PlayolaStreaming
@_exported import PlayolaSupport
