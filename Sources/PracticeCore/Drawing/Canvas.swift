import CCairo
import CCairoLoader
import Foundation

/// The kinds of picture cairo writes: the same drawing calls on different surfaces.
public enum PictureFormat: String, Sendable, CaseIterable {
  case png, svg, pdf

  /// The format a file name's extension names (any case); nil for others.
  public init?(path: String) {
    self.init(rawValue: (path as NSString).pathExtension.lowercased())
  }
}

/// A colour, red, green and blue from 0 to 1.
public struct RGB: Sendable, Equatable {
  public var red: Double
  public var green: Double
  public var blue: Double

  public init(_ red: Double, _ green: Double, _ blue: Double) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// The 8-bit value cairo stores for a component of an opaque colour.
  public static func byte(_ component: Double) -> Int { Int((component * 255).rounded()) }
}

/// The colours pictures use. Selections take the palette in turn (ColorBrewer's Dark2,
/// distinct on screen and in print).
public enum PictureColours {
  public static let background = RGB(1, 1, 1)
  public static let ink = RGB(0.13, 0.13, 0.13)
  public static let faint = RGB(0.55, 0.55, 0.55)
  public static let grid = RGB(0.85, 0.85, 0.85)
  public static let peak = RGB(0.66, 0.75, 0.86)
  public static let rms = RGB(0.19, 0.35, 0.55)
  public static let doubtful = RGB(1.0, 0.85, 0.45)
  public static let otherPlays = RGB(0.45, 0.45, 0.45)
  public static let palette: [RGB] = [
    RGB(0.851, 0.373, 0.008), RGB(0.459, 0.439, 0.702), RGB(0.906, 0.161, 0.541),
    RGB(0.400, 0.651, 0.118), RGB(0.902, 0.671, 0.008), RGB(0.106, 0.620, 0.467),
  ]

  /// The colour of a selection by its index (the palette repeats).
  public static func selection(_ index: Int) -> RGB {
    index < 0 ? otherPlays : palette[index % palette.count]
  }
}

/// Why a picture could not be drawn or written, with the file and cairo's own message.
public struct PictureError: PracticeFailure, Equatable {
  public let category: FailureCategory
  public let message: String
  public var description: String { message }
}

/// One cairo surface and its drawing context (`cairo_create`), owned together: a PNG in
/// memory written out by `finish()`, or a PDF or SVG written as it is drawn. Units are
/// pixels for PNG, points for PDF and SVG.
final class Canvas {
  let path: String
  let format: PictureFormat
  let width: Double
  let height: Double
  private let surface: OpaquePointer  // owned; cairo_surface_destroy in deinit
  private let cr: OpaquePointer  // owned; cairo_destroy in deinit
  private var finished = false
  private let output: OutputFile  // committed by finish(); abandoned (removed) otherwise
  private let sink: UnsafeMutablePointer<practice_cairo_sink>  // owned; cairo's write closure

  init(path: String, format: PictureFormat, width: Double, height: Double) throws {
    if let reason = practice_cairo_load_error() {
      throw PictureError(
        category: .other,
        message:
          "cannot draw '\(path)': cairo could not be loaded (\(String(cString: reason))); "
          + "install libcairo2 (`make deps`)")
    }
    self.path = path
    self.format = format
    self.width = width
    self.height = height
    // cairo writes to a file practice made (never opening the path itself, which would
    // follow a link): an OutputFile, committed by `finish()`.
    let output = try OutputFile(path: path)
    let sink = UnsafeMutablePointer<practice_cairo_sink>.allocate(capacity: 1)
    sink.initialize(to: practice_cairo_sink(fd: output.descriptor, error: 0))
    let made: OpaquePointer?
    switch format {
    case .png:
      made = cairo_image_surface_create(
        CAIRO_FORMAT_ARGB32, Int32(width.rounded(.up)), Int32(height.rounded(.up)))
    case .pdf: made = cairo_pdf_surface_create_for_stream(practice_cairo_fd_write, sink, width, height)
    case .svg: made = cairo_svg_surface_create_for_stream(practice_cairo_fd_write, sink, width, height)
    }
    guard let made else {
      sink.deallocate()
      throw PictureError(category: .other, message: "cannot draw '\(path)': cairo made no surface")
    }
    let status = cairo_surface_status(made)
    guard status == CAIRO_STATUS_SUCCESS else {
      cairo_surface_destroy(made)
      sink.deallocate()
      throw Canvas.failure(status, path: path, writing: format != .png)
    }
    guard let context = cairo_create(made) else {
      cairo_surface_destroy(made)
      sink.deallocate()
      throw PictureError(category: .other, message: "cannot draw '\(path)': cairo made no context")
    }
    surface = made
    cr = context
    self.output = output
    self.sink = sink
    fill(PictureColours.background, x: 0, y: 0, width: width, height: height)
  }

  /// Ends the page and starts a blank one (PDF: a new page; PNG and SVG have one page).
  func newPage() {
    cairo_show_page(cr)
    fill(PictureColours.background, x: 0, y: 0, width: width, height: height)
  }

  deinit {
    cairo_destroy(cr)
    cairo_surface_destroy(surface)
    sink.deallocate()
    output.abandon()
  }

  /// Checks the drawing and writes the file (`cairo_surface_write_to_png_stream` for a PNG,
  /// `cairo_surface_finish` for a PDF or SVG, which cairo wrote as it went), then checks
  /// that every byte reached the disk and renames the file into place. On any failure
  /// nothing is left behind: 73 when cairo failed, 74 when the disk did.
  func finish() throws {
    guard !finished else { return }
    finished = true
    let drawn = cairo_status(cr)
    guard drawn == CAIRO_STATUS_SUCCESS else {
      output.abandon()
      throw Canvas.failure(drawn, path: path, writing: false)
    }
    let status: cairo_status_t
    if format == .png {
      cairo_surface_flush(surface)
      status = cairo_surface_write_to_png_stream(surface, practice_cairo_fd_write, sink)
    } else {
      cairo_surface_finish(surface)
      status = cairo_surface_status(surface)
    }
    if sink.pointee.error != 0 {
      output.abandon()
      throw output.writeError(sink.pointee.error)
    }
    guard status == CAIRO_STATUS_SUCCESS else {
      output.abandon()
      throw Canvas.failure(status, path: path, writing: true)
    }
    try output.commit()
  }

  static func failure(_ status: cairo_status_t, path: String, writing: Bool) -> PictureError {
    let reason = String(cString: cairo_status_to_string(status))
    if status == CAIRO_STATUS_WRITE_ERROR || status == CAIRO_STATUS_FILE_NOT_FOUND || writing {
      return PictureError(
        category: .cannotCreate,
        message:
          "cannot write '\(path)': cairo error \(status.rawValue) (\(reason)); "
          + "check that its folder exists and can be written")
    }
    return PictureError(
      category: .other, message: "cannot draw '\(path)': cairo error \(status.rawValue) (\(reason))"
    )
  }

  // MARK: Drawing

  private func source(_ colour: RGB, alpha: Double = 1) {
    if alpha >= 1 {
      cairo_set_source_rgb(cr, colour.red, colour.green, colour.blue)
    } else {
      cairo_set_source_rgba(cr, colour.red, colour.green, colour.blue, alpha)
    }
  }

  func fill(_ colour: RGB, x: Double, y: Double, width: Double, height: Double, alpha: Double = 1) {
    guard width > 0, height > 0 else { return }
    source(colour, alpha: alpha)
    cairo_rectangle(cr, x, y, width, height)
    cairo_fill(cr)
  }

  func line(_ colour: RGB, from: (Double, Double), to: (Double, Double), width: Double) {
    source(colour)
    cairo_set_line_width(cr, width)
    cairo_move_to(cr, from.0, from.1)
    cairo_line_to(cr, to.0, to.1)
    cairo_stroke(cr)
  }

  func polyline(_ colour: RGB, _ points: [(Double, Double)], width: Double) {
    guard let first = points.first, points.count > 1 else { return }
    source(colour)
    cairo_set_line_width(cr, width)
    cairo_move_to(cr, first.0, first.1)
    for point in points.dropFirst() { cairo_line_to(cr, point.0, point.1) }
    cairo_stroke(cr)
  }

  func dot(_ colour: RGB, x: Double, y: Double, radius: Double) {
    source(colour)
    cairo_new_path(cr)
    cairo_arc(cr, x, y, radius, 0, 2 * Double.pi)
    cairo_fill(cr)
  }

  private func font(size: Double, bold: Bool) {
    cairo_select_font_face(
      cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
      bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
    cairo_set_font_size(cr, size)
  }

  /// How wide `text` is in the font.
  func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
    font(size: size, bold: bold)
    var extents = cairo_text_extents_t()
    cairo_text_extents(cr, Canvas.printable(text), &extents)
    return extents.x_advance
  }

  /// Draws `text` with its baseline at `y`, from `x` (or ending at `x` when `alignRight`).
  func text(
    _ text: String, x: Double, y: Double, size: Double, colour: RGB, bold: Bool = false,
    alignRight: Bool = false
  ) {
    let shown = Canvas.printable(text)
    font(size: size, bold: bold)
    var start = x
    if alignRight {
      var extents = cairo_text_extents_t()
      cairo_text_extents(cr, shown, &extents)
      start = x - extents.x_advance
    }
    source(colour)
    cairo_move_to(cr, start, y)
    cairo_show_text(cr, shown)
  }

  /// `text` cut with `…` to fit `width`; empty if not even one character does.
  func fitted(_ text: String, width: Double, size: Double, bold: Bool = false) -> String {
    if textWidth(text, size: size, bold: bold) <= width { return text }
    var characters = Array(text)
    while !characters.isEmpty {
      characters.removeLast()
      let candidate = String(characters) + "…"
      if textWidth(candidate, size: size, bold: bold) <= width { return candidate }
    }
    return ""
  }

  /// Text from a tag or a name is data: control characters and bidirectional controls are
  /// shown escaped (`\x1b`, `\u202e`),
  /// never handed to the font.
  static func printable(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if TextRule.isControl(scalar) {
        result.append(contentsOf: TextRule.escape(scalar).unicodeScalars)
      } else {
        result.append(scalar)
      }
    }
    return String(result)
  }
}

/// A PNG read back with cairo (`cairo_image_surface_create_from_png`): its size and pixels.
public struct RasterImage: Sendable {
  public let width: Int
  public let height: Int
  /// Row-major 0xAARRGGBB (cairo's ARGB32, premultiplied: opaque pixels are plain).
  public let pixels: [UInt32]

  public init(pngPath path: String) throws {
    if let reason = practice_cairo_load_error() {
      throw PictureError(
        category: .other,
        message: "cannot read '\(path)': cairo could not be loaded (\(String(cString: reason)))")
    }
    guard let surface = cairo_image_surface_create_from_png(path) else {
      throw PictureError(category: .other, message: "cannot read '\(path)': cairo made no surface")
    }
    defer { cairo_surface_destroy(surface) }
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS else {
      throw PictureError(
        category: .badData,
        message: "cannot read '\(path)' as PNG: \(String(cString: cairo_status_to_string(status)))")
    }
    cairo_surface_flush(surface)
    width = Int(cairo_image_surface_get_width(surface))
    height = Int(cairo_image_surface_get_height(surface))
    let stride = Int(cairo_image_surface_get_stride(surface))
    let format = cairo_image_surface_get_format(surface)
    guard let data = cairo_image_surface_get_data(surface),
      format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24
    else {
      throw PictureError(category: .badData, message: "cannot read the pixels of '\(path)'")
    }
    var pixels = [UInt32](repeating: 0, count: width * height)
    for y in 0..<height {
      let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
      for x in 0..<width {
        pixels[y * width + x] = format == CAIRO_FORMAT_RGB24 ? row[x] | 0xFF00_0000 : row[x]
      }
    }
    self.pixels = pixels
  }

  /// Red, green, blue and alpha (0-255) at (x, y).
  public func pixel(x: Int, y: Int) -> (red: Int, green: Int, blue: Int, alpha: Int) {
    let value = pixels[y * width + x]
    return (
      Int((value >> 16) & 0xFF), Int((value >> 8) & 0xFF), Int(value & 0xFF), Int(value >> 24)
    )
  }

  /// Whether (x, y) is `colour` within `tolerance` per component, and opaque.
  public func pixel(x: Int, y: Int, is colour: RGB, tolerance: Int = 2) -> Bool {
    let p = pixel(x: x, y: y)
    return p.alpha == 255 && abs(p.red - RGB.byte(colour.red)) <= tolerance
      && abs(p.green - RGB.byte(colour.green)) <= tolerance
      && abs(p.blue - RGB.byte(colour.blue)) <= tolerance
  }
}
