/// What a token verified by an identity provider's key (JWKS) must carry, and where its
/// claims are: a provider issues its own claim names, so `role` and `stream_ids` are looked up
/// by configured paths. Tokens signed with our HS256 secrets keep our names and are not held
/// to `issuers` and `audiences` (the `token` command mints them without either).
///
/// Fails closed: without issuers every provider token is refused unless `acceptsAnyIssuer`
/// says so, and likewise for audiences, since a provider signs tokens for all of its
/// applications with the same keys.
public struct IdentityTokenPolicy: Sendable, Equatable {
    /// `iss` must be one of these (RFC 7519 §4.1.1, compared exactly).
    public var issuers: [String] = []
    /// `aud` (a string or an array of strings) must hold one of these (RFC 7519 §4.1.3).
    public var audiences: [String] = []
    /// With no `issuers`: accept every `iss` the keys sign (the token must still carry one).
    public var acceptsAnyIssuer = false
    /// With no `audiences`: accept every `aud`, or none.
    public var acceptsAnyAudience = false
    public var roleClaim = ClaimPath.role
    public var streamsClaim = ClaimPath.streamIDs
    /// The role of a token without the role claim (or whose array holds none of ours); nil
    /// refuses such tokens.
    public var defaultRole: Role?
    /// The provider's role name that makes a token admin, as the role claim's string or an
    /// entry of its array; without one an array never gives admin (see `role`).
    public var adminRoleName: String?

    public init() {}

    /// Nil when `iss` and `aud` pass, else why not.
    func check(issuer: String?, audience: [String]?) -> TokenError? {
        if !issuers.isEmpty || !acceptsAnyIssuer {
            guard let issuer, issuers.contains(issuer) else { return .wrongIssuer }
        }
        if !audiences.isEmpty || !acceptsAnyAudience {
            guard let audience, audience.contains(where: audiences.contains) else { return .wrongAudience }
        }
        return nil
    }

    /// The role a role claim's value gives. A string must be one of ours (or `adminRoleName`,
    /// which gives admin). An array of strings, as providers list a user's roles and groups
    /// for all of their applications, gives admin only when it holds `adminRoleName`, else
    /// the stronger of streamer and viewer it holds, else the default: a generic `admin` in
    /// such a list (a realm administrator, another application's group) is not ours.
    /// `.failure(.malformed)` when the claim is of another shape.
    func role(_ value: JSONValue?) -> Result<Role, TokenError> {
        switch value {
        case nil, .null?:
            return defaultRole.map { .success($0) } ?? .failure(.missingClaim(roleClaim.text))
        case .string(let text)?:
            if let adminRoleName, text == adminRoleName { return .success(.admin) }
            return Role(rawValue: text).map { .success($0) } ?? .failure(.invalidRole)
        case .array(let elements)?:
            var names: [String] = []
            for element in elements {
                guard case .string(let text) = element else { return .failure(.malformed) }
                names.append(text)
            }
            if let adminRoleName, names.contains(adminRoleName) { return .success(.admin) }
            for role in [Role.streamer, .viewer] where names.contains(role.rawValue) { return .success(role) }
            return defaultRole.map { .success($0) } ?? .failure(.invalidRole)
        default:
            return .failure(.malformed)
        }
    }
}

/// Where a claim is in the claims object: a member name, or a dotted path through nested
/// objects (`app_metadata.role`). A member whose whole name is the text wins over the path,
/// so namespaced claims such as `https://example.com/role` are found as written.
public struct ClaimPath: Sendable, Equatable {
    public let text: String
    let components: [String]

    public static let role = ClaimPath(validated: "role")
    public static let streamIDs = ClaimPath(validated: "stream_ids")

    /// Nil for an empty text, an empty segment (`a..b`, `.a`, `a.`), or more than 8 levels.
    public init?(_ text: String) {
        let components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, components.count <= 8, !components.contains(where: \.isEmpty) else { return nil }
        self.text = text
        self.components = components
    }

    private init(validated text: String) {
        self.text = text
        components = [text]
    }

    /// The value at this path in `object`; nil when a step is absent or not an object.
    func value(in object: JSONObjectReader) -> JSONValue? {
        if let whole = object.value(text) { return whole }
        var current = object
        for (index, name) in components.enumerated() {
            guard let value = current.value(name) else { return nil }
            if index == components.count - 1 { return value }
            guard let next = JSONObjectReader(value) else { return nil }
            current = next
        }
        return nil
    }
}
