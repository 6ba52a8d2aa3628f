import Foundation

/// What a setlist is printed to, by the file name's extension (any case).
public enum SetlistFileKind: String, Sendable, CaseIterable {
  case pdf, txt, md

  /// nil for another extension.
  public init?(path: String) {
    self.init(rawValue: (path as NSString).pathExtension.lowercased())
  }
}

extension SetlistLayout {
  /// Writes the setlist to `path` as `kind`: a PDF on `paper` (its folder checked first), a
  /// text or a Markdown file; texts through `escape`. Returns how many entries it holds.
  @discardableResult
  public func write(
    to path: String, as kind: SetlistFileKind, paper: SetlistSheet.Paper,
    escape: (String) -> String
  ) throws -> Int {
    let lines = lines(escape: escape)
    switch kind {
    case .pdf:
      try OutputFile.checkFolder(of: path)
      try SetlistSheet(name: name, lines: lines).writePDF(to: path, paper: paper)
    case .md: try OutputFile.write(Data(markdown(escape: escape).utf8), to: path)
    case .txt: try OutputFile.write(Data(text(escape: escape).utf8), to: path)
    }
    return lines.count
  }
}
