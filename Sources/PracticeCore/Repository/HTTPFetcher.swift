import CCurl
import CCurlLoader
import Foundation

/// What a previous answer said about a document, sent back to ask "changed since?".
public struct FetchValidators: Sendable, Equatable {
  /// The `ETag` header (sent as `If-None-Match`); for a local file, its size and mtime.
  public var etag: String?
  /// The `Last-Modified` header (sent as `If-Modified-Since`).
  public var lastModified: String?

  public init(etag: String? = nil, lastModified: String? = nil) {
    self.etag = etag
    self.lastModified = lastModified
  }

  public var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// The answer to a conditional GET.
public enum FetchResult: Sendable, Equatable {
  /// 304: what the validators describe is still current.
  case notModified
  /// 200: the body and the validators to send next time.
  case fetched(Data, FetchValidators)
}

/// Why a fetch failed; the CLI words it (`category` picks the exit code).
public struct FetchError: PracticeFailure, Equatable {
  public enum Kind: Sendable, Equatable {
    /// libcurl cannot be loaded (dlerror's text).
    case libraryMissing(String)
    /// No network, no such host, nothing listening, timed out: the offline case.
    case unreachable(code: Int, message: String)
    /// The server answered with a status other than 200 or 304.
    case status(Int)
    /// The document is larger than the cap (bytes).
    case tooLarge(limit: Int64)
    /// More redirects than allowed, or a redirect to a scheme other than http(s).
    case redirects(message: String)
    /// TLS: the certificate or the handshake failed.
    case tls(code: Int, message: String)
    /// Any other libcurl failure, with its code and message.
    case curl(code: Int, message: String)
    /// A local file (file:// or a path) that cannot be read.
    case file(String)
  }

  public let kind: Kind
  /// The URL or path asked for.
  public let location: String

  public init(_ kind: Kind, location: String) {
    self.kind = kind
    self.location = location
  }

  public var category: FailureCategory {
    switch kind {
    case .libraryMissing: return .other
    case .unreachable: return .unavailable
    case .status(let code): return code == 404 || code == 410 ? .missingInput : .other
    case .tooLarge, .redirects: return .badData
    case .tls, .curl: return .other
    case .file: return .missingInput
    }
  }

  public var description: String {
    switch kind {
    case .libraryMissing(let reason):
      return "cannot load libcurl (\(reason)); install it (apt install libcurl4) to pull over http"
    case .unreachable(let code, let message):
      return "cannot reach '\(location)' (curl \(code): \(message)); offline? nothing was changed"
    case .status(let code):
      return "'\(location)' answered HTTP \(code)"
    case .tooLarge(let limit):
      return "'\(location)' is larger than the \(limit / 1_048_576) MiB limit; refused"
    case .redirects(let message):
      return "'\(location)': \(message); refused"
    case .tls(let code, let message):
      return
        "'\(location)': TLS failed (curl \(code): \(message)); the server's certificate is not trusted"
    case .curl(let code, let message):
      return "cannot fetch '\(location)' (curl \(code): \(message))"
    case .file(let reason):
      return "cannot read '\(location)': \(reason)"
    }
  }
}

/// GETs documents over http(s) with libcurl (loaded on first use), conditionally
/// (If-None-Match, If-Modified-Since), with TLS verified, redirects limited, a size cap
/// enforced while receiving, and timeouts. `file://` URLs and plain paths are read
/// directly, without curl. One instance owns one curl handle and is used by one thread;
/// the handle is reused so that successive requests to one server share a connection.
public final class HTTPFetcher {
  public struct Limits: Sendable {
    /// Redirects followed at most.
    public var redirects = 5
    /// Seconds to connect.
    public var connectTimeout = 10
    /// Seconds for a whole transfer.
    public var timeout = 120
    public init() {}

    /// For a fetch someone is waiting on before playing: 3 s to connect, 20 s in all.
    public static var interactive: Limits {
      var limits = Limits()
      limits.connectTimeout = 3
      limits.timeout = 20
      return limits
    }
  }

  public let limits: Limits
  /// The curl handle, created on the first http(s) request. Owned; freed in deinit.
  private var handle: UnsafeMutableRawPointer?
  /// libcurl's detailed message for the last failure (CURLOPT_ERRORBUFFER).
  private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
  /// How many http(s) requests were made (the index, then each entry).
  public private(set) var requests = 0

  public init(limits: Limits = Limits()) {
    self.limits = limits
    errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
  }

  deinit {
    if let handle { practice_curl_easy_cleanup(handle) }
    errorBuffer.deallocate()
  }

  /// Whether `location` names a local file (`file://…` or a path) rather than http(s).
  public static func isLocal(_ location: String) -> Bool {
    let lower = location.lowercased()
    return !(lower.hasPrefix("http://") || lower.hasPrefix("https://"))
  }

  /// The path a local location names (`file:///a/b` → `/a/b`); nil for a `file://` URL
  /// with a host or one that does not parse.
  public static func localPath(_ location: String) -> String? {
    guard location.lowercased().hasPrefix("file:") else { return location }
    guard let url = URL(string: location), url.isFileURL,
      url.host == nil || url.host == "" || url.host == "localhost"
    else { return nil }
    return url.path
  }

  /// `location` with `name` appended as one more path component (a URL keeps its scheme;
  /// the name is percent-encoded).
  public static func child(_ location: String, _ name: String) -> String {
    if isLocal(location), !location.lowercased().hasPrefix("file:") {
      return (location.hasSuffix("/") ? location : location + "/") + name
    }
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/?#;")
    let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    return (location.hasSuffix("/") ? location : location + "/") + encoded
  }

  /// GETs `location`, asking for it only if it changed since `validators` (when given);
  /// at most `maxBytes` are accepted.
  public func get(_ location: String, validators: FetchValidators?, maxBytes: Int64) throws
    -> FetchResult
  {
    if Self.isLocal(location) {
      guard let path = Self.localPath(location) else {
        throw FetchError(.file("only file:// URLs without a host are read"), location: location)
      }
      return try readLocal(path, location: location, validators: validators, maxBytes: maxBytes)
    }
    return try getHTTP(location, validators: validators, maxBytes: maxBytes)
  }

  // MARK: Local files

  private func readLocal(
    _ path: String, location: String, validators: FetchValidators?, maxBytes: Int64
  ) throws -> FetchResult {
    var status = stat()
    guard stat(path, &status) == 0 else {
      throw FetchError(.file(String(cString: strerror(errno))), location: location)
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw FetchError(.file("not a regular file"), location: location)
    }
    guard Int64(status.st_size) <= maxBytes else {
      throw FetchError(.tooLarge(limit: maxBytes), location: location)
    }
    // The size and modification time (ns) stand for an ETag.
    let tag =
      "\"\(status.st_size)-\(status.st_mtim.tv_sec)-\(status.st_mtim.tv_nsec)-\(status.st_ino)\""
    if let validators, validators.etag == tag { return .notModified }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else {
      throw FetchError(.file(String(cString: strerror(errno))), location: location)
    }
    defer { close(fd) }
    // Read at most one byte past the cap: a file that grew meanwhile is still refused.
    var data = Data(count: Int(status.st_size) + 1)
    var filled = 0
    let ok = data.withUnsafeMutableBytes { raw -> Bool in
      guard let base = raw.baseAddress else { return true }
      while filled < raw.count {
        let n = read(fd, base + filled, raw.count - filled)
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return false }
        if n == 0 { break }
        filled += n
      }
      return true
    }
    guard ok else { throw FetchError(.file(String(cString: strerror(errno))), location: location) }
    guard Int64(filled) <= maxBytes else {
      throw FetchError(.tooLarge(limit: maxBytes), location: location)
    }
    data.count = filled
    return .fetched(data, FetchValidators(etag: tag))
  }

  // MARK: HTTP

  /// What the callbacks collect during one transfer.
  private final class Transfer {
    var body = Data()
    var etag: String?
    var lastModified: String?
    let maxBytes: Int64
    var overCap = false
    init(maxBytes: Int64) { self.maxBytes = maxBytes }
  }

  private func curlHandle(_ location: String) throws -> UnsafeMutableRawPointer {
    if let handle { return handle }
    if let reason = practice_curl_load_error() {
      throw FetchError(.libraryMissing(String(cString: reason)), location: location)
    }
    guard let created = practice_curl_easy_init() else {
      throw FetchError(.curl(code: 2, message: "curl_easy_init failed"), location: location)
    }
    handle = created
    return created
  }

  private func getHTTP(_ location: String, validators: FetchValidators?, maxBytes: Int64) throws
    -> FetchResult
  {
    let curl = try curlHandle(location)
    let transfer = Transfer(maxBytes: maxBytes)
    let context = Unmanaged.passUnretained(transfer).toOpaque()
    var headers: UnsafeMutablePointer<curl_slist>?
    defer { practice_curl_slist_free_all(headers) }
    if let etag = validators?.etag {
      headers = practice_curl_slist_append(headers, "If-None-Match: \(etag)")
    }
    if let lastModified = validators?.lastModified {
      headers = practice_curl_slist_append(headers, "If-Modified-Since: \(lastModified)")
    }

    func check(_ code: CURLcode, _ what: String) throws {
      guard code == CURLE_OK else {
        throw FetchError(
          .curl(
            code: Int(code.rawValue),
            message: "\(what): " + String(cString: practice_curl_easy_strerror(code))),
          location: location)
      }
    }
    func string(_ option: CURLoption, _ value: String?) throws {
      let code: CURLcode =
        if let value { value.withCString { practice_curl_setopt_pointer(curl, option, $0) } } else {
          practice_curl_setopt_pointer(curl, option, nil)
        }
      try check(code, "setting option \(option.rawValue)")
    }
    func long(_ option: CURLoption, _ value: Int) throws {
      try check(practice_curl_setopt_long(curl, option, value), "setting option \(option.rawValue)")
    }

    errorBuffer[0] = 0
    try check(
      practice_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer),
      "setting the error buffer")
    try string(CURLOPT_URL, location)
    // Only http and https, for the first request and every redirect (never file:// or
    // others a hostile server could redirect to).
    if practice_curl_setopt_pointer(curl, CURLOPT_PROTOCOLS_STR, "http,https")
      == CURLE_UNKNOWN_OPTION
    {
      try long(CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
      try long(CURLOPT_REDIR_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
    } else {
      try string(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    }
    try long(CURLOPT_FOLLOWLOCATION, 1)
    try long(CURLOPT_MAXREDIRS, limits.redirects)
    try long(CURLOPT_SSL_VERIFYPEER, 1)
    try long(CURLOPT_SSL_VERIFYHOST, 2)
    try long(CURLOPT_NOSIGNAL, 1)
    try long(CURLOPT_CONNECTTIMEOUT_MS, limits.connectTimeout * 1000)
    try long(CURLOPT_TIMEOUT_MS, limits.timeout * 1000)
    // A server that stalls: under 1 byte/s for 30 s ends the transfer.
    try long(CURLOPT_LOW_SPEED_LIMIT, 1)
    try long(CURLOPT_LOW_SPEED_TIME, 30)
    try check(
      practice_curl_setopt_off(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes)),
      "setting the size cap")
    try string(CURLOPT_ACCEPT_ENCODING, "")
    try string(CURLOPT_USERAGENT, "practice/0.1 (libcurl)")
    try check(
      practice_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, headers), "setting the headers")
    try long(CURLOPT_HTTPGET, 1)
    try check(
      practice_curl_setopt_callback(curl, CURLOPT_WRITEFUNCTION) { data, size, count, user in
        let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
        let bytes = size * count
        // The cap while receiving: a server that sends no length (or lies) is cut off.
        guard Int64(transfer.body.count) + Int64(bytes) <= transfer.maxBytes else {
          transfer.overCap = true
          return 0
        }
        if let data {
          transfer.body.append(
            UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: bytes)
        }
        return bytes
      }, "setting the write callback")
    try check(
      practice_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, context), "setting the write data")
    try check(
      practice_curl_setopt_callback(curl, CURLOPT_HEADERFUNCTION) { data, size, count, user in
        let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
        let bytes = size * count
        guard let data, bytes < 16_384 else { return bytes }
        let line = String(
          decoding: UnsafeRawBufferPointer(start: data, count: bytes), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
          // A new response (after a redirect): forget the previous one's headers.
          transfer.etag = nil
          transfer.lastModified = nil
        } else if let colon = line.firstIndex(of: ":") {
          let name = line[..<colon].lowercased()
          let value = line[line.index(after: colon)...].trimmingCharacters(
            in: .whitespacesAndNewlines)
          if name == "etag", !value.isEmpty { transfer.etag = value }
          if name == "last-modified", !value.isEmpty { transfer.lastModified = value }
        }
        return bytes
      }, "setting the header callback")
    try check(
      practice_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, context), "setting the header data")

    requests += 1
    let code = practice_curl_easy_perform(curl)
    // The pointers handed to curl must not outlive this call.
    _ = practice_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, nil)
    _ = practice_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, nil)
    _ = practice_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, nil)
    if code != CURLE_OK {
      let detail = String(cString: errorBuffer)
      let message = detail.isEmpty ? String(cString: practice_curl_easy_strerror(code)) : detail
      let number = Int(code.rawValue)
      switch code {
      case CURLE_WRITE_ERROR where transfer.overCap, CURLE_FILESIZE_EXCEEDED:
        throw FetchError(.tooLarge(limit: maxBytes), location: location)
      case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
        CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR:
        throw FetchError(.unreachable(code: number, message: message), location: location)
      case CURLE_TOO_MANY_REDIRECTS:
        throw FetchError(
          .redirects(message: "more than \(limits.redirects) redirects"), location: location)
      case CURLE_UNSUPPORTED_PROTOCOL:
        throw FetchError(
          .redirects(message: "a redirect to another scheme (\(message))"), location: location)
      case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE,
        CURLE_SSL_CERTPROBLEM:
        throw FetchError(.tls(code: number, message: message), location: location)
      default:
        throw FetchError(.curl(code: number, message: message), location: location)
      }
    }
    var status = 0
    try check(
      practice_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status), "reading the status")
    switch status {
    case 304:
      return .notModified
    case 200:
      return .fetched(
        transfer.body, FetchValidators(etag: transfer.etag, lastModified: transfer.lastModified))
    default:
      throw FetchError(.status(status), location: location)
    }
  }
}
