/// Parses a plain decimal number as people type it: an optional sign, digits and an
/// optional fraction (`75`, `-0.5`, `+6`, `.5`). Unlike `Double(_:)` it refuses hexadecimal
/// (`0x1`), exponents (`1e308`), `inf` and `nan`, so what was typed is what is read.
public func parseDecimal<S: StringProtocol>(_ text: S) -> Double? {
  var digits = 0
  var dots = 0
  for (index, character) in text.enumerated() {
    switch character {
    case "+",
      "-" where index == 0:
      continue
    case "0"..."9": digits += 1
    case ".": dots += 1
    default: return nil
    }
  }
  guard digits > 0, dots <= 1, digits <= 30, let value = Double(String(text)), value.isFinite
  else { return nil }
  return value
}
