extension Int64 {
  /// The whole number nearest `value`, or nil when `value` is NaN, infinite or beyond
  /// Int64: the checked form of `Int64(value.rounded())`, which traps there, for numbers a
  /// file or a user gives (a tag's `1e300:00:00` times a sample rate).
  init?(nearest value: Double) {
    guard let whole = Int64(exactly: value.rounded()) else { return nil }
    self = whole
  }
}
