/// A setlist on paper, for the music stand: one song a line in large type (position, title,
/// key, tempo), its notes under it, as many pages as it takes. The PDF renderer of
/// `SetlistLayout`'s lines.
public struct SetlistSheet: Sendable {
  public typealias Line = SetlistLayout.Line

  /// Paper sizes in points.
  public enum Paper: String, Sendable, CaseIterable {
    case a4, letter

    var size: (width: Double, height: Double) {
      switch self {
      case .a4: return (595.28, 841.89)
      case .letter: return (612, 792)
      }
    }
  }

  public var name: String
  public var lines: [Line]

  public init(name: String, lines: [Line]) {
    self.name = name
    self.lines = lines
  }

  static let margin = 42.0
  static let titleSize = 26.0
  static let notesSize = 14.0
  static let headingSize = 20.0

  /// Writes the sheet as a PDF at `path`.
  public func writePDF(to path: String, paper: Paper) throws {
    let (width, height) = paper.size
    let canvas = try Canvas(path: path, format: .pdf, width: width, height: height)
    let margin = SetlistSheet.margin
    let right = width - margin
    let rowHeight = SetlistSheet.titleSize * 1.25 + SetlistSheet.notesSize * 1.5
    var y = margin
    var page = 1
    func heading() {
      let label = page == 1 ? name : "\(name) (\(page))"
      y = margin + SetlistSheet.headingSize
      canvas.text(
        canvas.fitted(label, width: right - margin, size: SetlistSheet.headingSize, bold: true),
        x: margin, y: y, size: SetlistSheet.headingSize, colour: PictureColours.faint, bold: true)
      y += SetlistSheet.headingSize
    }
    heading()
    // The position column is as wide as the widest number; key and tempo sit at the right.
    let numberWidth =
      lines.map { canvas.textWidth($0.position, size: SetlistSheet.titleSize, bold: true) }.max()
      ?? 0
    let detailSize = SetlistSheet.titleSize * 0.8
    for line in lines {
      if y + rowHeight > height - margin {
        canvas.newPage()
        page += 1
        heading()
      }
      let baseline = y + SetlistSheet.titleSize
      canvas.text(
        line.position, x: margin + numberWidth, y: baseline, size: SetlistSheet.titleSize,
        colour: PictureColours.ink, bold: true, alignRight: true)
      let details = [line.key, line.tempo].filter { !$0.isEmpty }.joined(separator: "   ")
      let detailsWidth = details.isEmpty ? 0 : canvas.textWidth(details, size: detailSize) + 16
      if !details.isEmpty {
        canvas.text(
          details, x: right, y: baseline, size: detailSize, colour: PictureColours.ink,
          alignRight: true)
      }
      let titleX = margin + numberWidth + 12
      canvas.text(
        canvas.fitted(
          line.title, width: right - detailsWidth - titleX, size: SetlistSheet.titleSize,
          bold: true),
        x: titleX, y: baseline, size: SetlistSheet.titleSize, colour: PictureColours.ink, bold: true)
      if !line.notes.isEmpty {
        canvas.text(
          canvas.fitted(line.notes, width: right - titleX, size: SetlistSheet.notesSize),
          x: titleX, y: baseline + SetlistSheet.notesSize * 1.4, size: SetlistSheet.notesSize,
          colour: PictureColours.faint)
      }
      y += rowHeight
    }
    try canvas.finish()
  }
}
