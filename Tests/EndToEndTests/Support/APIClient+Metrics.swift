import PreviewTestSupport

extension APIClient {
    /// The value of the sample `series` (a metric name with its labels, as scraped) in this
    /// server's `/metrics`, as written; nil when the scrape has no such line.
    func metricValue(_ series: String) throws -> String? {
        let text = String(decoding: try send("GET", "/metrics").body, as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map {
            String($0.dropFirst(series.count + 1))
        }
    }
}
