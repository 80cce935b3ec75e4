extension JWTJSON {
    /// The claims of a token signed by an identity provider's key, read by the same strict
    /// reader as ours: standard claims by their names, role and streams by the policy's paths.
    struct IdentityPayload {
        var sub: String?
        var role: Result<Role, TokenError>
        /// Empty when the streams claim is absent (a provider's viewer tokens carry none).
        var streamIds: [Int64]
        var iat: Int64?
        var exp: Int64?
        var nbf: Int64?
        var iss: String?
        /// `aud` as a list: one string or an array of strings (RFC 7519 §4.1.3).
        var aud: [String]?
    }

    /// Nil when the bytes are not a strict JSON object, or a standard claim, `aud` or the
    /// streams claim has the wrong type.
    static func identityPayload(_ bytes: [UInt8], policy: IdentityTokenPolicy) -> IdentityPayload? {
        guard var object = strictObject(bytes) else { return nil }
        var payload = IdentityPayload(
            sub: object.optionalString("sub"), role: policy.role(policy.roleClaim.value(in: object)),
            streamIds: [], iat: object.optionalNumber("iat"), exp: object.optionalNumber("exp"),
            nbf: object.optionalNumber("nbf"), iss: object.optionalString("iss"))
        switch object.value("aud") {
        case nil, .null?: break
        case .string(let text)?: payload.aud = [text]
        case .array(let elements)?:
            var audience: [String] = []
            for element in elements {
                guard case .string(let text) = element else { return nil }
                audience.append(text)
            }
            payload.aud = audience
        default: return nil
        }
        if let streams = policy.streamsClaim.value(in: object) {
            payload.streamIds = streamIDs(streams, failed: &object)?.map(\.value) ?? []
        }
        return object.failed ? nil : payload
    }
}
