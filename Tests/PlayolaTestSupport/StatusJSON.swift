/// The fields of the service's status JSON that every report has, for tests that make one up.
package enum StatusJSON {
    /// A device that is gone and a config running on its last good copy.
    package static let paused = #""ok":true,"device":"hw:0","deviceAvailable":false,"volume":70,"uptime":3725,"config":{"file":"/boot/firmware/playola.ini","lastGood":"/var/lib/playola/last-good.ini","usingLastGood":true,"error":"/boot/firmware/playola.ini:5: error: rate must be auto, 48000 or 44100, not '12345'"},"cache":{"bytes":1572864,"budget":536870912,"files":3}"#
}
