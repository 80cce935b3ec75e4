// Answers written over time (`HTTPResponse.Body.stream`, such as server-sent events) on
// libmicrohttpd: MHD reads the stream as the connection drains and the connection is suspended
// while it has nothing. Part of the libmicrohttpd adapter: it reaches MHD through MHDDaemon.swift.
import Glibc
import PreviewCore

/// A response MHD reads from `stream` as the connection drains (chunked, length unknown); while
/// the stream has nothing the connection is suspended, holding no thread and no timer, until
/// the stream wakes it. MHD's cleanup callback tells the stream it is closed.
func streamResponse(_ stream: any ResponseStream, on connection: MHDConnection, streams: ResponseStreams)
    -> OpaquePointer?
{
    let box = StreamingResponse(stream: stream, connection: connection, streams: streams)
    let retained = Unmanaged.passRetained(box).toOpaque()
    guard let made = callbackResponse(context: retained, read: readStream, release: releaseStream) else {
        Unmanaged<StreamingResponse>.fromOpaque(retained).release()
        return nil
    }
    // A stream stays open for hours: its socket buffers at most `streamSendBuffer` in the kernel
    // (Linux would grow it to megabytes for a client that does not read), so such a client
    // reaches the stream's own bound and is dropped.
    let socket = connection.socket
    if let socket {
        var size = streamSendBuffer
        // A refused size only leaves the kernel's default: the stream's own bound still holds.
        _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    let deadline = connection.deadline
    // Started before it is watched: a client already gone is told to a stream that can wake.
    stream.start(
        wake: { connection.resume() },
        // Due at once: the watchdog shuts the socket down at its next tick (it holds the socket
        // until MHD reports the connection closed, so never a reused descriptor), then MHD
        // closes the connection like any other.
        abort: { deadline?.set(0) })
    if !streams.add(stream, socket: socket ?? -1) { stream.end() }  // the server is stopping
    return made
}

/// The send buffer of a streamed answer's socket (Linux doubles it for its bookkeeping).
private let streamSendBuffer: Int32 = 32 * 1024

/// What MHD's stream callbacks reach through their context pointer.
private final class StreamingResponse: Sendable {
    let stream: any ResponseStream
    let connection: MHDConnection
    let streams: ResponseStreams

    init(stream: any ResponseStream, connection: MHDConnection, streams: ResponseStreams) {
        self.stream = stream
        self.connection = connection
        self.streams = streams
    }
}

/// MHD's content reader: the stream's bytes, or nothing with the connection suspended until
/// the stream wakes it, or the end, or a failure (`MHDContentRead`).
private func readStream(
    _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
    guard let cls, let buffer else { return MHDContentRead.failed.value }
    let box = Unmanaged<StreamingResponse>.fromOpaque(cls).takeUnretainedValue()
    let connection = box.connection
    let read = box.stream.read(
        into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity), suspend: { connection.suspend() })
    switch read {
    case .bytes(let count): return MHDContentRead.bytes(count).value
    case .waiting: return MHDContentRead.waiting.value
    case .end: return MHDContentRead.end.value
    case .failed: return MHDContentRead.failed.value
    }
}

/// MHD's cleanup callback of a `streamResponse`.
private func releaseStream(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let box = Unmanaged<StreamingResponse>.fromOpaque(cls).takeRetainedValue()
    box.streams.remove(box.stream)
    box.stream.closed()
}
