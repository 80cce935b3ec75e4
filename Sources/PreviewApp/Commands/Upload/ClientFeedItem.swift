import PreviewServer
import StreamPreviewClient

/// The app package's `FeedItem`, named apart from the server's (`PreviewCore.FeedItem`): the
/// package's module and its main type share a name, so `StreamPreviewClient.FeedItem` does
/// not reach it from a file that imports both.
typealias ClientFeedItem = FeedItem
