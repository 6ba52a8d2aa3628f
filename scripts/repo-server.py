#!/usr/bin/env python3
"""A static web server for repository tests and benchmarks, on 127.0.0.1 and a free port.

Serves DIR like any static server a band would use, and answers conditional requests:
ETag / If-None-Match (which the stock SimpleHTTPRequestHandler lacks) and Last-Modified /
If-Modified-Since, with 304. Every request is appended to LOG as one line,
`METHOD PATH STATUS`, so a test can count them ("one request, answered 304").

    repo-server.py DIR LOG [CERT KEY]
        prints the port on stdout, then serves until killed (https with CERT and KEY)
"""
import email.utils
import hashlib
import http.server
import os
import signal
import ssl
import sys
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: with Nagle's algorithm on, each answer on
    # a kept-alive connection would wait ~40 ms for the client's delayed ACK.
    disable_nagle_algorithm = True
    root = "."
    log_path = None

    def log_message(self, format, *args):  # quiet: the log file is the record
        pass

    def record(self, status):
        with open(self.log_path, "a") as log:
            log.write(f"{self.command} {self.path} {status}\n")

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and status != 304:
            self.wfile.write(body)
        self.record(status)

    def do_GET(self):
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        if path.startswith("/redirect/"):
            # /redirect/N/NAME: N more redirects before NAME.
            _, _, count, name = path.split("/", 3)
            target = f"/redirect/{int(count) - 1}/{name}" if int(count) > 1 else "/" + name
            return self.answer(302, headers=[("Location", target)])
        local = os.path.normpath(os.path.join(self.root, path.lstrip("/")))
        if not local.startswith(os.path.abspath(self.root)) or not os.path.isfile(local):
            return self.answer(404, b"not found\n")
        with open(local, "rb") as f:
            body = f.read()
        status = os.stat(local)
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        modified = email.utils.formatdate(int(status.st_mtime), usegmt=True)
        headers = [("ETag", etag), ("Last-Modified", modified),
                   ("Content-Type", "application/json")]
        match = self.headers.get("If-None-Match")
        since = self.headers.get("If-Modified-Since")
        if match is not None:
            if etag in [tag.strip() for tag in match.split(",")] or match.strip() == "*":
                return self.answer(304, headers=headers)
        elif since is not None:
            try:
                if int(status.st_mtime) <= email.utils.parsedate_to_datetime(since).timestamp():
                    return self.answer(304, headers=headers)
            except (TypeError, ValueError):
                pass
        self.answer(200, body, headers)

    do_HEAD = do_GET


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    # A test runner may block or ignore SIGTERM, which a child inherits: undo that, so
    # that the test's terminate() stops the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    Handler.root = os.path.abspath(sys.argv[1])
    Handler.log_path = sys.argv[2]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if len(sys.argv) == 5:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
