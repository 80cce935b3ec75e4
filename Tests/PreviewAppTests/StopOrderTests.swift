import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("StopOrder: what started stops in the reverse order, once")
struct StopOrderTests {
    @Test("parts stop last started first, each once, however often stopAll is called")
    func reverseOrderOnce() {
        final class Trace { var stopped: [String] = [] }
        let trace = Trace()
        let running = StopOrder()
        for name in ["log", "redis", "listener"] { running.started(name) { trace.stopped.append(name) } }
        #expect(running.stopping == ["listener", "redis", "log"])
        running.stopAll()
        running.stopAll()
        #expect(trace.stopped == ["listener", "redis", "log"])
        #expect(running.stopping == [])
    }
}
