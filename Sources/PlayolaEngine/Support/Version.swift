public enum PlayolaVersion {
    public static let string = "0.1.0"
    /// Sent as the HTTP User-Agent.
    public static let userAgent = "playola-appliance/\(string)"
}
