/// `text` cut after `limit` characters with `…`: a field of a file can be a megabyte long, and
/// an error line names it rather than repeats it.
public func excerpt(_ text: some StringProtocol, limit: Int = 40) -> String {
  let head = text.prefix(limit + 1)
  return head.count > limit ? "\(head.prefix(limit))…" : String(head)
}

/// `text` in single quotes for a message, cut as `excerpt` cuts it.
public func quoted(_ text: some StringProtocol, limit: Int = 40) -> String {
  "'\(excerpt(text, limit: limit))'"
}
