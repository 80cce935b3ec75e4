/// What a responder decides from a request's head alone, before any body byte is read and
/// before `100 Continue` is sent.
public enum RequestAdmission: Sendable {
    /// Read the body into memory, at most `limit` bytes (API messages). A body declared larger
    /// must be refused in `admit` instead (413 at once); if it is not, the server reads and
    /// drops it and hands `respond(to:)` a request with `bodyTooLarge` set. A chunked body
    /// that grows past the limit is not drained: the server closes the connection without an
    /// answer and `respond(to:)` is not called (libmicrohttpd cannot queue a response while a
    /// body is being received).
    case buffer(limit: Int)
    /// Hand each body chunk to `sink` as it arrives (uploads: never held whole in memory).
    case stream(any HTTPBodySink)
    /// Answer with this response now, without reading the body: no `100 Continue`, and the
    /// connection is closed after it (`Connection: close`).
    case reject(HTTPResponse)
}

/// Receives a streamed request body, chunk by chunk, on the server's I/O thread.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// Takes the next chunk, valid only during the call. Returning false refuses the rest: the
    /// server closes the connection and calls `abandon()`; `respond(to:)` is not called.
    func write(_ chunk: UnsafeRawBufferPointer) -> Bool
    /// The request ended without `respond(to:)` being called (client went away, timeout,
    /// server stopping, `write` refused): drop everything written. Called at most once.
    func abandon()
}

/// Why the server refused a request on its own, before asking the responder to admit it.
public enum HTTPRefusal: Sendable, Equatable {
    /// The body's length cannot be told one way only (request smuggling); `reason` is for
    /// humans, e.g. "Content-Length and Transfer-Encoding together".
    case ambiguousFraming(String)
}
