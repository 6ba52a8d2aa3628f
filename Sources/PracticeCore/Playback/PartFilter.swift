import Foundation

/// What a listener pulls out of the mix to hear their part: a three-band EQ, a focus
/// preset, a band-pass, a channel choice and a centre cut. A pure value; `design` turns it
/// into the coefficients the render thread runs (`FilterStage`).
///
/// The curves (all RBJ "Audio EQ Cookbook" sections at the song's sample rate; a centre or
/// corner above 45 % of the rate is designed at 45 %):
/// - `eq`: low shelf at 250 Hz and high shelf at 4 kHz (shelf slope 1), peak at 1 kHz (Q 0.7).
/// - focus presets: the part at its level and the rest of the spectrum 9 dB down, as one
///   section `r + (1 − r)·H` with r = 10^(−9/20): `bass` H = low-pass 300 Hz (Q 0.7071);
///   `guitar` H = band-pass 700 Hz (Q 0.7); `vocal` H = band-pass 2 kHz (Q 0.7); `drums`
///   H = notch 1 kHz (Q 0.3), the middle scooped so kick and cymbals stand out; `treble`
///   H = high-pass 3 kHz (Q 0.7071).
/// - `band`: 4th-order Butterworth high-pass at the low edge and low-pass at the high edge
///   (24 dB/octave each side; two sections each, Q 0.5412 and 1.3066); an edge at or above
///   45 % of the rate is left out.
/// - stereo only (the first two channels): `centreCut` k attenuates the centre (mid) by
///   (1 − k) and raises the sides by (1 + k), `L' = L − k·R`, `R' = R − k·L`, so a sound
///   panned hard to one side keeps its level there; then `channel`.
/// Order: centre cut, channel, focus, EQ, band.
public struct PartFilter: Sendable, Equatable {
  public enum Focus: String, Sendable, CaseIterable {
    case bass, guitar, vocal, drums, treble
  }

  public enum Channel: String, Sendable, CaseIterable {
    /// Both channels as recorded.
    case both, left, right, mono, swap
  }

  /// Gains in dB of the low shelf (250 Hz), the peak (1 kHz) and the high shelf (4 kHz).
  public struct EQ: Sendable, Equatable {
    public var low: Double
    public var mid: Double
    public var high: Double

    public init(low: Double, mid: Double, high: Double) {
      self.low = low
      self.mid = mid
      self.high = high
    }

    /// `LOW:MID:HIGH` in dB (`6:0:-3`, `+6:0:-3dB`); nil if malformed. Range is checked
    /// separately (`PartFilter.eqRange`).
    public init?(parsing text: String) {
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count == 3 else { return nil }
      var values: [Double] = []
      for part in parts {
        var s = part.trimmingCharacters(in: .whitespaces)
        if s.lowercased().hasSuffix("db") { s = String(s.dropLast(2)) }
        guard let v = parseDecimal(s) else { return nil }
        values.append(v)
      }
      self.init(low: values[0], mid: values[1], high: values[2])
    }

    var isFlat: Bool { low == 0 && mid == 0 && high == 0 }
  }

  public var eq: EQ?
  public var focus: Focus?
  /// Band-pass edges in Hz, low < high.
  public var band: ClosedRange<Double>?
  public var channel: Channel = .both
  /// The centre cut, 0 (none) to 1 (the centre removed).
  public var centreCut: Double = 0

  public init(
    eq: EQ? = nil, focus: Focus? = nil, band: ClosedRange<Double>? = nil, channel: Channel = .both,
    centreCut: Double = 0
  ) {
    self.eq = eq
    self.focus = focus
    self.band = band
    self.channel = channel
    self.centreCut = centreCut
  }

  public static let none = PartFilter()

  /// What `--eq` accepts, per band, in dB.
  public static let eqRange = -24.0...12.0
  /// What `--band` accepts, in Hz.
  public static let bandRange = 20.0...20000.0
  /// The focus presets' rest-of-spectrum level, dB.
  public static let focusRestDecibels = -9.0
  /// Frequencies of the EQ's sections and the peak's Q.
  public static let eqLowHz = 250.0
  public static let eqMidHz = 1000.0
  public static let eqHighHz = 4000.0
  public static let eqMidQ = 0.7

  /// Nothing to do: the engine bypasses the stage (output bit-exact).
  public var isNone: Bool {
    (eq?.isFlat ?? true) && focus == nil && band == nil && channel == .both && centreCut == 0
  }

  /// `80-400` (Hz, also `80hz-400hz`, `1.5k-3k`); nil if malformed or not low < high. Range
  /// is checked separately (`bandRange`).
  public static func parseBand(_ text: String) -> ClosedRange<Double>? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2 else { return nil }
    func hertz(_ part: Substring) -> Double? {
      var s = part.trimmingCharacters(in: .whitespaces).lowercased()
      if s.hasSuffix("hz") { s = String(s.dropLast(2)) }
      var scale = 1.0
      if s.hasSuffix("k") {
        scale = 1000
        s = String(s.dropLast())
      }
      guard let v = parseDecimal(s) else { return nil }
      return v * scale
    }
    guard let low = hertz(parts[0]), let high = hertz(parts[1]), low < high else { return nil }
    return low...high
  }

  /// `50%` or `50` (a bare number is percent) as a fraction; nil if malformed. Range is
  /// checked separately (0–100 %).
  public static func parseAmount(_ text: String) -> Double? {
    let s = text.hasSuffix("%") ? String(text.dropLast()) : text
    guard let v = parseDecimal(s) else { return nil }
    return v / 100
  }

  /// What is wrong with a filter as written, for the face to word with its options.
  public enum Problem: Error, Equatable {
    /// The EQ is not three gains `LOW:MID:HIGH`.
    case eqNotThreeGains(String)
    /// A gain of the EQ `text` is outside `eqRange`.
    case eqGainOutOfRange(text: String, gain: Double)
    /// The band is not `LOW-HIGH` with LOW below HIGH.
    case notABand(String)
    /// An edge of the band is outside `bandRange`.
    case bandOutOfRange(String)
    /// The centre cut's amount is not a percentage.
    case notAnAmount(String)
    /// The centre cut's amount is outside 0-100 %.
    case amountOutOfRange(String)
  }

  /// The filters as written: the EQ (`6:0:-3`), a focus, the band (`80-400`), the channel
  /// and the centre cut's amount (`60%`); each checked against its range.
  public init(
    writtenEQ eq: String?, focus: Focus?, band: String?, channel: Channel?, centreCut: String?
  ) throws(Problem) {
    self.init(focus: focus, channel: channel ?? .both)
    if let eq {
      guard let bands = EQ(parsing: eq) else { throw .eqNotThreeGains(eq) }
      for gain in [bands.low, bands.mid, bands.high] where !PartFilter.eqRange.contains(gain) {
        throw .eqGainOutOfRange(text: eq, gain: gain)
      }
      self.eq = bands
    }
    if let band {
      guard let edges = PartFilter.parseBand(band) else { throw .notABand(band) }
      guard PartFilter.bandRange.contains(edges.lowerBound),
        PartFilter.bandRange.contains(edges.upperBound)
      else { throw .bandOutOfRange(band) }
      self.band = edges
    }
    if let centreCut {
      guard let amount = PartFilter.parseAmount(centreCut) else { throw .notAnAmount(centreCut) }
      guard (0...1).contains(amount) else { throw .amountOutOfRange(centreCut) }
      self.centreCut = amount
    }
  }

  /// The sections and channel matrix for `channels` channels at `sampleRate`.
  public func design(sampleRate: Int, channels: Int) -> FilterDesign {
    var design = FilterDesign.identity
    if channels >= 2 {
      let k = centreCut
      // Centre cut, then the channel choice: M = C · K.
      let cut = (1.0, -k, -k, 1.0)
      let choice: (Double, Double, Double, Double)
      switch channel {
      case .both: choice = (1, 0, 0, 1)
      case .left: choice = (1, 0, 1, 0)
      case .right: choice = (0, 1, 0, 1)
      case .mono: choice = (0.5, 0.5, 0.5, 0.5)
      case .swap: choice = (0, 1, 1, 0)
      }
      let m = (
        choice.0 * cut.0 + choice.1 * cut.2, choice.0 * cut.1 + choice.1 * cut.3,
        choice.2 * cut.0 + choice.3 * cut.2, choice.2 * cut.1 + choice.3 * cut.3
      )
      if m != (1, 0, 0, 1) {
        design.matrix = m
        design.mixesChannels = true
      }
    }
    let rate = sampleRate
    if let focus {
      let rest = pow(10, PartFilter.focusRestDecibels / 20)
      let h: Biquad
      switch focus {
      case .bass: h = .lowPass(300, q: 0.5.squareRoot(), sampleRate: rate)
      case .guitar: h = .bandPass(700, q: 0.7, sampleRate: rate)
      case .vocal: h = .bandPass(2000, q: 0.7, sampleRate: rate)
      case .drums: h = .notch(1000, q: 0.3, sampleRate: rate)
      case .treble: h = .highPass(3000, q: 0.5.squareRoot(), sampleRate: rate)
      }
      design.append(h.blended(rest: rest))
    }
    if let eq {
      if eq.low != 0 {
        design.append(.lowShelf(PartFilter.eqLowHz, gain: eq.low, sampleRate: rate))
      }
      if eq.mid != 0 {
        design.append(
          .peak(PartFilter.eqMidHz, q: PartFilter.eqMidQ, gain: eq.mid, sampleRate: rate))
      }
      if eq.high != 0 {
        design.append(.highShelf(PartFilter.eqHighHz, gain: eq.high, sampleRate: rate))
      }
    }
    if let band {
      let top = Biquad.highestFrequency(sampleRate: rate)
      if band.lowerBound < top {
        for q in Biquad.butterworth4Q {
          design.append(.highPass(band.lowerBound, q: q, sampleRate: rate))
        }
        if band.upperBound < top {
          for q in Biquad.butterworth4Q {
            design.append(.lowPass(band.upperBound, q: q, sampleRate: rate))
          }
        }
      } else {
        // The whole band lies above what the file holds: nothing of it can be heard.
        design.append(Biquad(b0: 0, b1: 0, b2: 0, a1: 0, a2: 0))
      }
    }
    return design
  }

  /// A short label for the status line: `focus bass · centre cut 100% · left`; nil when none.
  public var label: String? {
    var parts: [String] = []
    if let focus { parts.append("focus \(focus.rawValue)") }
    if let eq, !eq.isFlat {
      parts.append(String(format: "eq %+g:%+g:%+g", eq.low, eq.mid, eq.high))
    }
    if let band {
      parts.append(String(format: "band %g-%g", band.lowerBound, band.upperBound))
    }
    if centreCut > 0 { parts.append("centre cut \(Int((centreCut * 100).rounded()))%") }
    if channel != .both { parts.append(channel.rawValue) }
    return parts.isEmpty ? nil : parts.joined(separator: " · ")
  }
}

/// The coefficients the render thread runs: a channel matrix (stereo) and a cascade of
/// sections applied to every channel. A fixed-size plain value, so it crosses to the
/// render thread through a `ValueRing` without allocation.
public struct FilterDesign: Sendable, BitwiseCopyable {
  public static let maxSections = 12

  /// `L' = m.0·L + m.1·R`, `R' = m.2·L + m.3·R` (first two channels), when `mixesChannels`.
  public var matrix: (Double, Double, Double, Double) = (1, 0, 0, 1)
  public var mixesChannels = false
  public private(set) var sectionCount = 0
  public private(set) var sections = InlineArray<12, Biquad>(repeating: .identity)

  public static let identity = FilterDesign()

  /// Whether it leaves every sample as it is.
  public var isIdentity: Bool { !mixesChannels && sectionCount == 0 }

  mutating func append(_ section: Biquad) {
    guard sectionCount < FilterDesign.maxSections else { return }
    sections[sectionCount] = section
    sectionCount += 1
  }
}
