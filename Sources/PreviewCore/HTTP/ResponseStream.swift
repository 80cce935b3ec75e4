/// A response body written over time (server-sent events): the server pulls bytes from it
/// whenever the connection can take more, and parks the connection, holding no thread, while
/// the stream has none. The stream wakes it when bytes arrive or it ends.
///
/// Contract with the server adapter: `start(wake:abort:)` once, before the first `read`; `read` only
/// from the connection's thread; `wake` called by the stream at most once per `.waiting` answer
/// and only after the `suspend` of that `read` ran (both under the stream's own lock, so a
/// wake never overtakes its suspend); `end()` may come from any thread; `closed()` exactly once
/// when the server is done with the response, however the connection ended.
public protocol ResponseStream: AnyObject, Sendable {
    /// `abort` closes the connection at once, from any thread (a client that does not read is
    /// never called back for bytes, so it is cut off instead of asked).
    func start(wake: @escaping @Sendable () -> Void, abort: @escaping @Sendable () -> Void)
    /// Copies up to `buffer.count` bytes into `buffer`. On `.waiting` the stream has called
    /// `suspend` and will call `wake` once it has bytes or has ended.
    func read(into buffer: UnsafeMutableRawBufferPointer, suspend: () -> Void) -> ResponseStreamRead
    /// Ends the stream from the server's side (it is stopping): the next `read` says `.end`.
    func end()
    /// The client has gone (the server saw its end of the connection close or reset while the
    /// stream waited): the next `read` says `.failed`, and a stream that is waiting calls `wake`
    /// now, so the connection and its slot are freed at once instead of at the next write.
    /// From any thread.
    func hangUp()
    /// The connection is gone or the response finished: nothing will be read again.
    func closed()
}

public enum ResponseStreamRead: Equatable, Sendable {
    /// This many bytes were copied.
    case bytes(Int)
    /// Nothing now: the connection is suspended until `wake`.
    case waiting
    /// The body is complete.
    case end
    /// The stream failed (a client that does not read, over its buffer): close the connection.
    case failed
}
