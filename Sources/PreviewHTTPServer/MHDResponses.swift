// Turning an `HTTPResponse` into a queued libmicrohttpd response (MHDDaemon.swift has the daemon).
import CMicroHTTPD
import Glibc
import PreviewCore

// MARK: - Responses

/// Queues a refusal on the first call with `Connection: close`, which MHD honours by closing
/// after the answer (it would anyway, for a response queued before the body).
func queueClosing(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    var closing = response
    closing.headers.set("Connection", "close")
    return queue(closing, on: connection)
}

/// Queues `response`; anything MHD refuses (unopenable file, bad header, odd status) becomes
/// an empty 500 and one log line.
func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let status: UInt32
    let handle: OpaquePointer
    switch makeResponse(response) {
    case .success(let made):
        status = UInt32(response.status)
        handle = made
    case .failure(let problem):
        logError("response-failed", problem)
        guard let empty = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) else { return .NO }
        status = 500
        handle = empty
    }
    // MHD keeps its own reference to a queued response.
    defer { MHD_destroy_response(handle) }
    return MHD_queue_response(connection, status, handle)
}

private struct ResponseProblem: Error, CustomStringConvertible {
    var description: String
}

private func makeResponse(_ response: HTTPResponse) -> Result<OpaquePointer, ResponseProblem> {
    guard (100...999).contains(response.status) else {
        return .failure(ResponseProblem(description: "status \(response.status) out of range"))
    }
    let handle: OpaquePointer
    switch response.body {
    case .bytes(let bytes):
        guard let made = bodyResponse(bytes) else { return .failure(ResponseProblem(description: "out of memory")) }
        handle = made
    case .file(let path, let offset, let length):
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return .failure(ResponseProblem(description: "cannot open \(path): \(String(cString: strerror(errno)))"))
        }
        // On success MHD owns the descriptor and closes it with the response.
        guard let made = MHD_create_response_from_fd_at_offset64(length, fd, offset) else {
            _ = close(fd)  // we still own it; a close error changes nothing
            return .failure(ResponseProblem(description: "cannot serve \(path) offset \(offset) length \(length)"))
        }
        handle = made
    }
    for field in response.headers {
        // MHD computes Content-Length from the body (and keeps it for HEAD).
        if HTTPHeaders.sameName(field.name, "Content-Length") { continue }
        guard MHD_add_response_header(handle, field.name, field.value) == .YES else {
            MHD_destroy_response(handle)
            return .failure(ResponseProblem(description: "header \(field.name) rejected"))
        }
    }
    return .success(handle)
}

/// A response whose body MHD sends from `bytes` itself rather than from a copy (a feed answer is
/// 18 KB): a box holding the array goes to MHD with the response and is released by MHD's
/// cleanup callback when the response is destroyed, after its last send. The array is never
/// mutated while boxed, so its contiguous storage stays where its address was taken.
private func bodyResponse(_ bytes: [UInt8]) -> OpaquePointer? {
    guard !bytes.isEmpty else { return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) }
    let body = ResponseBody(bytes)
    let base = body.bytes.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress) }
    let retained = Unmanaged.passRetained(body).toOpaque()
    guard let made = MHD_create_response_from_buffer_with_free_callback_cls(bytes.count, base, releaseBody, retained)
    else {
        Unmanaged<ResponseBody>.fromOpaque(retained).release()
        return nil
    }
    return made
}

private final class ResponseBody {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// MHD's cleanup callback of a `bodyResponse`: the response is gone, and its body with it.
private func releaseBody(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<ResponseBody>.fromOpaque(context).release()
}

/// One structured line on stderr.
private func logError(_ event: String, _ detail: CustomStringConvertible) {
    let line = "component=http-server event=\(event) message=\"\(detail)\"\n"
    var bytes = Array(line.utf8)
    // Logging is best effort: a failed write to stderr has nowhere to be reported.
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
