/// A live stream as every viewer sees it: its preview and its like count.
public struct LiveStream: Sendable, Equatable {
    public var preview: PreviewRecord
    public var likes: Int64

    public init(preview: PreviewRecord, likes: Int64) {
        self.preview = preview
        self.likes = likes
    }
}
