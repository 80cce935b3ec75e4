import PreviewServer

extension ServeOptions {
    static let webhookSpecs = WebhookOptions.specs

    static func parseWebhooks(_ options: ParsedOptions, into serve: inout ServeOptions) throws(UsageError) {
        serve.webhooks = try WebhookOptions.parse(options)
    }
}
