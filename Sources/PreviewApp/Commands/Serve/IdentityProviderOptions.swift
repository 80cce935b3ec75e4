import PreviewCore
import PreviewServer

/// `serve`'s identity-provider tokens: where the provider's public keys (JWKS) come from, what
/// its tokens must carry (issuer, audience) and where their claims are.
struct IdentityProviderOptions: Sendable, Equatable {
    /// `--jwks-file`: read at start, again on SIGHUP and when the file changes.
    var jwksFile: String?
    /// `--jwks-url`: fetched at start and in the background.
    var jwksURL: String?
    var policy = IdentityTokenPolicy()

    init() {}

    /// Whether a key set is configured (the other options need one).
    var isConfigured: Bool { jwksFile != nil || jwksURL != nil }

    static let specs: [OptionSpec] = [
        OptionSpec(
            flag: "jwks-file", environment: "STREAMPREVIEW_JWKS_FILE",
            help:
                "identity provider's public keys (a JWKS document): RS256, ES256 and EdDSA tokens are verified with the key their kid names; read at start, on SIGHUP and when the file changes"
        ),
        OptionSpec(
            flag: "jwks-url", environment: "STREAMPREVIEW_JWKS_URL",
            help:
                "http(s) URL of the provider's JWKS: fetched at start and again as its Cache-Control max-age says (5 min to 24 h), and for an unknown kid once the last fetch is \(JWKSRefreshSchedule.unknownKeyIDFloor) s old; a failed fetch keeps the last keys; /readyz is 503 until a first fetch succeeds"
        ),
        OptionSpec(
            flag: "jwt-issuer", environment: "STREAMPREVIEW_JWT_ISSUER",
            help:
                "provider tokens' iss must be this (repeat for several; the variable takes a comma list); required with provider keys unless --jwt-allow-any-issuer",
            repeats: true),
        OptionSpec(
            flag: "jwt-audience", environment: "STREAMPREVIEW_JWT_AUDIENCE",
            help:
                "provider tokens' aud must hold one of these (repeat for several; the variable takes a comma list); required with provider keys unless --jwt-allow-any-audience",
            repeats: true),
        OptionSpec(
            flag: "jwt-allow-any-issuer", environment: "STREAMPREVIEW_JWT_ALLOW_ANY_ISSUER",
            help:
                "accept provider tokens of every iss the keys sign, without --jwt-issuer (logged as a warning at start)",
            isSwitch: true),
        OptionSpec(
            flag: "jwt-allow-any-audience", environment: "STREAMPREVIEW_JWT_ALLOW_ANY_AUDIENCE",
            help:
                "accept provider tokens for every aud, or none, without --jwt-audience: tokens the provider issues for its other applications too (logged as a warning at start)",
            isSwitch: true),
        OptionSpec(
            flag: "jwt-role-claim", environment: "STREAMPREVIEW_JWT_ROLE_CLAIM",
            help:
                "claim of provider tokens holding the role, a dotted path for nested claims such as app_metadata.role (default role): a string streamer, viewer or admin, or an array, which gives streamer over viewer and admin only with --jwt-admin-role"
        ),
        OptionSpec(
            flag: "jwt-admin-role", environment: "STREAMPREVIEW_JWT_ADMIN_ROLE",
            help:
                "the provider's role name that makes a token admin, as the role claim's string or an entry of its array (default: only the string admin; an array never gives admin)"
        ),
        OptionSpec(
            flag: "jwt-streams-claim", environment: "STREAMPREVIEW_JWT_STREAMS_CLAIM",
            help:
                "claim of provider tokens listing the streams the holder owns, a dotted path allowed (default stream_ids)"
        ),
        OptionSpec(
            flag: "jwt-default-role", environment: "STREAMPREVIEW_JWT_DEFAULT_ROLE",
            help: "role of a provider token without the role claim, e.g. viewer (default: such tokens are refused)"),
    ]

    static func parse(_ options: ParsedOptions) throws(UsageError) -> IdentityProviderOptions {
        var parsed = IdentityProviderOptions()
        switch (options.string("jwks-file"), options.string("jwks-url")) {
        case (.some, .some):
            throw UsageError("give the provider keys once: --jwks-file or --jwks-url, not both")
        case (.some(let path), nil):
            guard !path.isEmpty else { throw UsageError("--jwks-file needs a path") }
            parsed.jwksFile = path
        case (nil, .some(let url)):
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.utf8.count > 8,
                url.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else { throw UsageError("--jwks-url must be an http:// or https:// URL, not '\(url)'") }
            parsed.jwksURL = url
        case (nil, nil):
            break
        }
        parsed.policy.issuers = options.all("jwt-issuer").filter { !$0.isEmpty }
        parsed.policy.audiences = options.all("jwt-audience").filter { !$0.isEmpty }
        for (flag, keyPath) in [
            ("jwt-role-claim", \IdentityTokenPolicy.roleClaim),
            ("jwt-streams-claim", \IdentityTokenPolicy.streamsClaim),
        ] {
            guard let text = options.string(flag) else { continue }
            guard let path = ClaimPath(text) else {
                throw UsageError(
                    "--\(flag) must be a claim name or a dotted path such as app_metadata.role, not '\(text)'")
            }
            parsed.policy[keyPath: keyPath] = path
        }
        if let name = options.string("jwt-admin-role") {
            guard !name.isEmpty else { throw UsageError("--jwt-admin-role needs a role name") }
            parsed.policy.adminRoleName = name
        }
        if let text = options.string("jwt-default-role") {
            guard let role = Role(rawValue: text) else {
                throw UsageError("--jwt-default-role must be streamer, viewer or admin, not '\(text)'")
            }
            parsed.policy.defaultRole = role
        }
        parsed.policy.acceptsAnyIssuer = try options.bool("jwt-allow-any-issuer")
        parsed.policy.acceptsAnyAudience = try options.bool("jwt-allow-any-audience")
        let needsKeys = [
            "jwt-issuer", "jwt-audience", "jwt-role-claim", "jwt-streams-claim", "jwt-default-role", "jwt-admin-role",
        ]
        if !parsed.isConfigured {
            if let flag = needsKeys.first(where: options.isSet) {
                throw UsageError("--\(flag) applies to identity-provider tokens: give --jwks-file or --jwks-url too")
            }
            if parsed.policy.acceptsAnyIssuer || parsed.policy.acceptsAnyAudience {
                throw UsageError(
                    "--jwt-allow-any-issuer and --jwt-allow-any-audience apply to identity-provider tokens: "
                        + "give --jwks-file or --jwks-url too")
            }
            return parsed
        }
        try requireScope(
            given: !parsed.policy.issuers.isEmpty, waived: parsed.policy.acceptsAnyIssuer, flag: "jwt-issuer",
            what: "the provider's iss, as its openid-configuration names it", waiver: "jwt-allow-any-issuer",
            waiverMeaning: "accept every issuer its keys sign")
        try requireScope(
            given: !parsed.policy.audiences.isEmpty, waived: parsed.policy.acceptsAnyAudience, flag: "jwt-audience",
            what: "the API identifier the provider puts in aud", waiver: "jwt-allow-any-audience",
            waiverMeaning: "accept the tokens it issues for its other applications too")
        return parsed
    }

    /// A provider signs the tokens of all its tenants and applications with the same keys: a
    /// token meant for another of them must not pass here unless the operator says so.
    private static func requireScope(
        given: Bool, waived: Bool, flag: String, what: String, waiver: String, waiverMeaning: String
    ) throws(UsageError) {
        if !given, !waived {
            throw UsageError(
                "with --jwks-file or --jwks-url give --\(flag) (\(what)), or --\(waiver) to \(waiverMeaning)")
        }
        if given, waived { throw UsageError("--\(waiver) contradicts --\(flag): give one of them") }
    }

    /// One warning line at start for each check the operator waived.
    func logWaivedChecks() {
        guard isConfigured else { return }
        if policy.acceptsAnyIssuer {
            Log.warn(
                "jwt_any_issuer",
                ["reason": "--jwt-allow-any-issuer: provider tokens of every issuer its keys sign are accepted"])
        }
        if policy.acceptsAnyAudience {
            Log.warn(
                "jwt_any_audience",
                [
                    "reason":
                        "--jwt-allow-any-audience: provider tokens for every audience are accepted, those it issues for other applications included"
                ])
        }
    }
}
