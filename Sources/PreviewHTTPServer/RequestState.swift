import PreviewCore

/// One request's state, from its request line to NOTIFY_COMPLETED.
///
/// `@unchecked Sendable`: it crosses threads once each way, never shared at the same time.
/// The MHD thread fills it, suspends the connection and queues the job (the pool's lock
/// orders these before the job runs); the worker sets `response` then resumes the
/// connection; MHD's resume lock orders that before the MHD thread reads `response`.
final class RequestState: @unchecked Sendable {
    /// How the body of an admitted request is read.
    enum Body {
        /// Into `body`, at most `limit` bytes.
        case buffer(limit: Int)
        /// To a sink, through a buffer drained by a writer thread.
        case stream(StreamedBody)
    }

    let target: RequestTarget
    /// The connection's watchdog entry: a header deadline until the head is complete, a body
    /// deadline (buffered) or minimum rate (streamed) while the body arrives, none while the
    /// request is served, the idle deadline once it is answered.
    let deadline: ConnectionDeadline?
    var head: HTTPRequestHead?
    var mode = Body.buffer(limit: 0)
    var body: [UInt8] = []
    var bodyTooLarge = false
    /// Set once `respond(to:)` has been handed the request: from then on a streamed body is
    /// the responder's, and is not abandoned.
    var dispatched = false
    /// Where `respond(to:)` runs: this connection's MHD thread, or a pool worker.
    var respondOn = ResponderThread.worker
    /// Refused on its head with a body declared: drain that body on close (`LingeringSockets`).
    var lingersOnClose = false
    /// The streamed body's writer has paused the connection; the body deadline then runs.
    var paused = false
    /// The streamed body failed after it was received: close without an answer.
    var closesUnanswered = false
    /// Admitted with `.openStream`: the connection holds a stream slot and closes after the answer.
    var closesAfterAnswer = false
    /// Set while the request is suspended, for the worker to resume.
    var connection: OpaquePointer?
    /// The responder's answer, waiting for MHD to call the handler again after resume.
    var response: HTTPResponse?

    init(target: RequestTarget, deadline: ConnectionDeadline?) {
        self.target = target
        self.deadline = deadline
    }
}
