import Synchronization

/// Requests by route template, method and status, and their latency by route template and
/// method. Low cardinality by construction: a fixed table of route templates (`RouteLabel`),
/// never a stream ID or a path, and statuses 100-599.
///
/// Recording is three relaxed atomic adds into preallocated slots (status count, latency
/// bucket, latency sum): no lock, no allocation, so the I/O threads never wait on each other.
public final class HTTPMetrics: Sendable {
    /// One slot per status 100...599, per label.
    private final class Row: Sendable {
        let statuses: InlineArray<500, Atomic<UInt64>>
        let latency = LatencyHistogram()
        init() { statuses = InlineArray { _ in Atomic(0) } }
    }

    private let rows: [Row]

    public init() {
        rows = RouteLabel.all.map { _ in Row() }
    }

    /// Counts one answered request. A status outside 100...599 counts as 599.
    public func record(_ label: RouteLabel, status: Int, nanoseconds: Int64) {
        let row = rows[label.index]
        row.statuses[min(max(status, 100), 599) - 100].add(1, ordering: .relaxed)
        row.latency.observe(nanoseconds: nanoseconds)
    }

    /// Requests counted for `label` and `status` so far.
    public func count(_ label: RouteLabel, status: Int) -> UInt64 {
        guard (100...599).contains(status) else { return 0 }
        return rows[label.index].statuses[status - 100].load(ordering: .relaxed)
    }

    /// `streampreview_http_requests_total` and `streampreview_http_request_duration_seconds`;
    /// only the series that have counted something.
    public func render(into text: inout PrometheusText) {
        text.family(
            "streampreview_http_requests_total", .counter,
            help: "HTTP requests answered, by route template, method and status.")
        for label in RouteLabel.all {
            let row = rows[label.index]
            for slot in 0..<500 {
                let count = row.statuses[slot].load(ordering: .relaxed)
                guard count > 0 else { continue }
                text.sample(
                    "streampreview_http_requests_total",
                    labels: [("route", label.route), ("method", label.method), ("status", String(slot + 100))], count)
            }
        }
        text.family(
            "streampreview_http_request_duration_seconds", .histogram,
            help: "Time from a complete request to its answer, by route template and method.")
        for label in RouteLabel.all where rows[label.index].latency.count > 0 {
            text.histogram(
                "streampreview_http_request_duration_seconds",
                labels: [("route", label.route), ("method", label.method)],
                rows[label.index].latency)
        }
    }
}

/// The route template and method a request is counted under: one of a fixed table. A request
/// that matches no route (404, 405, a malformed stream ID) counts as `route="other"` with its
/// method, or `method="other"` for a method outside GET, HEAD, POST, PUT, DELETE.
public struct RouteLabel: Sendable, Equatable {
    public let route: String
    public let method: String
    let index: Int

    private init(_ index: Int) {
        self.index = index
        (route, method) = Self.table[index]
    }

    /// Each route's template and method (`RouteKind.traits`), in the order of `RouteKind`, then
    /// the requests that matched none.
    static let table: [(String, String)] =
        RouteKind.allCases.map { ($0.traits.template, $0.traits.method) } + otherMethods.map { ("other", $0) }

    static let otherMethods = ["GET", "HEAD", "POST", "PUT", "DELETE", "other"]

    /// Every label, in rendering order.
    public static let all: [RouteLabel] = table.indices.map { RouteLabel($0) }

    /// The label of a parsed route (the route decides the method).
    public init(_ route: Route) { self.init(route.kind.rawValue) }

    /// The label of a request that matched no route.
    public static func other(method: String) -> RouteLabel {
        let slot = otherMethods.firstIndex(of: method) ?? otherMethods.count - 1
        return all[table.count - otherMethods.count + slot]
    }

    public static func == (lhs: RouteLabel, rhs: RouteLabel) -> Bool { lhs.index == rhs.index }
}
