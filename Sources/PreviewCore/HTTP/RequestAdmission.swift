/// What a responder decides from a request's head alone, before any body byte is read and
/// before `100 Continue` is sent.
public enum RequestAdmission: Sendable {
    /// Read the body into memory, at most `limit` bytes (API messages), then call `respond(to:)`
    /// on the thread `on` names. A body declared larger must be refused in `admit` instead
    /// (413 at once); if it is not, the server reads and drops it and hands `respond(to:)` a
    /// request with `bodyTooLarge` set. A chunked body that grows past the limit is not drained:
    /// the server closes the connection without an answer and `respond(to:)` is not called
    /// (libmicrohttpd cannot queue a response while a body is being received).
    case buffer(limit: Int, on: ResponderThread = .worker)
    /// Hand each body chunk to `sink` as it arrives (uploads: never held whole in memory), on a
    /// body-writer thread of the server; `respond(to:)` then runs on a worker
    /// (`ResponderThread.worker`) once every chunk is in the sink.
    case stream(any HTTPBodySink)
    /// Answer with this response now, without reading the body: no `100 Continue`, and the
    /// connection is closed after it (`Connection: close`).
    case reject(HTTPResponse)
    /// An answer that stays open (server-sent events): from now until it closes, the connection
    /// holds one of the server's stream slots (bounded in all and per client address) instead of
    /// a connection slot, so long-lived answers never take what requests need. With no slot
    /// free the request is refused at once with the responder's `refuse(_:reason:)`
    /// (`.streamSlotsFull`). Otherwise it is read like `.buffer(limit: 0, on:)`, and its
    /// connection closes after the answer, whatever the answer is.
    case openStream(on: ResponderThread)
}

/// Which thread runs `respond(to:)` for a request admitted with `.buffer`.
public enum ResponderThread: Sendable, Equatable {
    /// The server's I/O thread that owns the connection, as soon as the body is in: no suspend,
    /// no hand-off to another thread. While the responder runs, the other connections of that
    /// thread wait, so only for responders that touch memory and make short calls to a fast
    /// service (Redis) at most.
    case connection
    /// A thread of the worker pool, the connection suspended meanwhile: for responders that may
    /// wait on a slow service (object storage, retries with sleeps) or move large bodies, so
    /// the I/O threads keep serving every other connection.
    case worker
}

/// Receives a streamed request body, chunk by chunk, in order, one call at a time, on a thread
/// of the server's body writers, never an I/O thread: a write may block (a slow disk). While the
/// sink is behind, the server buffers a bounded amount of the body and then stops reading the
/// connection until the sink catches up.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// Takes the next chunk, valid only during the call. Returning false refuses the rest: the
    /// server closes the connection and calls `abandon()`; `respond(to:)` is not called.
    func write(_ chunk: UnsafeRawBufferPointer) -> Bool
    /// The request ended without `respond(to:)` being called (client went away, timeout,
    /// server stopping, `write` refused): drop everything written. Called at most once, on a
    /// writer or worker thread, after any `write` in progress has returned.
    func abandon()
}

/// Why the server refused a request on its own, before asking the responder to admit it.
public enum HTTPRefusal: Sendable, Equatable {
    /// The body's length cannot be told one way only (request smuggling); `reason` is for
    /// humans, e.g. "Content-Length and Transfer-Encoding together".
    case ambiguousFraming(String)
    /// A request admitted with `.openStream` found every stream slot taken: those of its client's
    /// address group (`perAddress`), or all of them. Answered with a 503 and `Retry-After`.
    case streamSlotsFull(perAddress: Bool)
}
