import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client's `URLSession` and its delegate: each task's answer, body bytes and upload progress
/// go to the handler registered for it. One delegate for the session (rather than per-task
/// delegates) works alike on Apple platforms and on Linux's FoundationNetworking.
///
/// `@unchecked Sendable`: the handler table is only touched under `lock`; URLSession calls the
/// delegate on its own serial queue.
final class SessionTransport: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [Int: TaskHandler] = [:]
    private var sessionStorage: URLSession?

    init(configuration: URLSessionConfiguration) {
        super.init()
        sessionStorage = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    var session: URLSession {
        guard let session = lock.withLock({ sessionStorage }) else { preconditionFailure("set in init") }
        return session
    }

    /// Lets running tasks finish, then breaks the session's hold on this delegate.
    func invalidate() { session.finishTasksAndInvalidate() }

    /// Callbacks of one task, called on the session's delegate queue.
    final class TaskHandler: @unchecked Sendable {
        var response: (HTTPURLResponse) -> Void = { _ in }
        var data: (Data) -> Void = { _ in }
        var sent: (_ sent: Int64, _ total: Int64) -> Void = { _, _ in }
        var complete: ((any Error)?) -> Void = { _ in }
    }

    /// Sends `request` (with `file` as the body when given) and collects the whole answer.
    func exchange(
        _ request: URLRequest, file: URL? = nil, onSent: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> (HTTPURLResponse, Data) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task =
                    file.map { session.uploadTask(with: request, fromFile: $0) } ?? session.dataTask(with: request)
                let handler = TaskHandler()
                var answer: HTTPURLResponse?
                var body = Data()
                handler.response = { answer = $0 }
                handler.data = { body.append($0) }
                if let onSent { handler.sent = onSent }
                handler.complete = { error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let answer {
                        continuation.resume(returning: (answer, body))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                register(handler, for: task)
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// Opens `request` as a stream: returns once the answer's head is in, with the body's bytes
    /// as they come. Cancelling the consuming task, or dropping the stream, cancels the request.
    func open(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
        let (bytes, bytesContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let box = TaskBox()
        bytesContinuation.onTermination = { _ in box.cancel() }
        let response: HTTPURLResponse = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                let handler = TaskHandler()
                var headed = false
                handler.response = { response in
                    headed = true
                    continuation.resume(returning: response)
                }
                handler.data = { bytesContinuation.yield($0) }
                handler.complete = { error in
                    if !headed { continuation.resume(throwing: error ?? URLError(.badServerResponse)) }
                    bytesContinuation.finish(throwing: error)
                }
                register(handler, for: task)
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
        return (response, bytes)
    }

    private func register(_ handler: TaskHandler, for task: URLSessionTask) {
        lock.withLock { handlers[task.taskIdentifier] = handler }
    }

    private func handler(_ task: URLSessionTask) -> TaskHandler? {
        lock.withLock { handlers[task.taskIdentifier] }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse { handler(dataTask)?.response(http) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handler(dataTask)?.data(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        handler(task)?.sent(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let handler = lock.withLock { handlers.removeValue(forKey: task.taskIdentifier) }
        handler?.complete(error)
    }
}

/// The task of one call, so that cancelling the calling Swift task cancels it, whichever comes first.
final class TaskBox: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func start(_ task: URLSessionTask) {
        let cancelled = lock.withLock {
            self.task = task
            return self.cancelled
        }
        if cancelled { task.cancel() }
        task.resume()
    }

    func cancel() {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}

extension SessionTransport: StreamPreviewTransport {
    func send(_ request: TransportRequest, onSent: (@Sendable (Int64, Int64) -> Void)?) async throws
        -> TransportResponse
    {
        do {
            let (response, body) = try await exchange(Self.urlRequest(request), file: request.bodyFile, onSent: onSent)
            return Self.response(response, body: body)
        } catch let error as URLError where error.code == .cancelled {
            throw CancellationError()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw TransportError(error)
        }
    }

    static func response(_ response: HTTPURLResponse, body: Data) -> TransportResponse {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return TransportResponse(status: response.statusCode, headers: headers, body: body)
    }

    static func urlRequest(_ request: TransportRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        if let timeout = request.timeout { urlRequest.timeoutInterval = timeout }
        return urlRequest
    }
}

extension TransportError {
    /// How a `URLSession` task broke, in the client's terms.
    init(_ error: any Error) {
        let failure: StreamPreviewClientError.Failure
        switch (error as? URLError)?.code {
        case .cannotConnectToHost?, .cannotFindHost?, .dnsLookupFailed?, .notConnectedToInternet?:
            failure = .connect
        case .timedOut?: failure = .timeout
        case .badURL?, .unsupportedURL?, .fileDoesNotExist?, .noPermissionsToReadFile?: failure = .fatal
        case nil: failure = .fatal
        default: failure = .transfer
        }
        let message: String
        switch (error as? URLError)?.code {
        case .networkConnectionLost?: message = "connection reset"
        case .some: message = (error as? URLError)?.localizedDescription ?? ""
        case nil: message = String(describing: error)
        }
        self.init(failure, message)
    }
}
