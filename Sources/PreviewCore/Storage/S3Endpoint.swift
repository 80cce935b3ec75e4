/// How a bucket appears in an S3 URL: botocore's `addressing_style` plus a bucket-bound host.
public enum S3Addressing: String, Sendable, Equatable {
    /// botocore's default: virtual-hosted where the bucket name allows it, as below.
    case auto
    case path
    case virtual
    /// The endpoint's host is the bucket itself (a custom domain in front of one bucket).
    case bucketHost = "bucket-host"
}

/// Where an S3 object URL points: scheme, authority and the path before the key.
///
/// Mirrors botocore 1.43's S3 endpoint ruleset as used by `generate_presigned_url`:
/// - no endpoint: AWS hosts. With `auto` in the `aws` partition, presigned URLs use the
///   global `s3.amazonaws.com` (`<bucket>.s3.amazonaws.com` when the bucket is DNS-safe,
///   else `s3.amazonaws.com/<bucket>`), unless the bucket is not a valid host label (dots,
///   underscores), which needs the regional host. Explicit `path`/`virtual` use the
///   regional host `s3.<region>.amazonaws.com`, except us-east-1: `s3.amazonaws.com`.
/// - a custom endpoint: path style unless `virtual` is asked for; even then path style for
///   IP-address endpoints and for names that are not virtual-hostable (dotted names are
///   allowed over plain http only, as botocore does).
/// The scope region is always the configured one.
public struct S3Endpoint: Sendable, Equatable {
    public var scheme: String
    /// As written in the URL (a custom endpoint keeps its spelling; the signed `host` is
    /// normalised by the signer).
    public var authority: String
    /// Everything between the authority and the key: `/` or `/<bucket>/` (after any
    /// endpoint path).
    public var keyPrefix: String

    public init(scheme: String, authority: String, keyPrefix: String) {
        self.scheme = scheme
        self.authority = authority
        self.keyPrefix = keyPrefix
    }

    public static func resolve(
        bucket: String, region: String, endpoint: String?, addressing: S3Addressing
    ) throws(ObjectSignError) -> S3Endpoint {
        guard !bucket.isEmpty, bucket.utf8.allSatisfy(isBucketByte) else {
            throw .invalidRequest("the bucket name '\(bucket)' has characters S3 does not allow")
        }
        guard !region.isEmpty, isValidHostLabel(region, allowDots: false) else {
            throw .invalidRequest("the region '\(region)' is not a valid region name")
        }
        if let endpoint {
            guard let url = StorageEndpointURL(endpoint) else {
                throw .invalidRequest("the endpoint '\(endpoint)' is not an http(s) base URL")
            }
            return custom(bucket: bucket, url: url, addressing: addressing)
        }
        if addressing == .bucketHost { throw .invalidRequest("bucket-host addressing needs --endpoint") }
        return aws(bucket: bucket, region: region, addressing: addressing)
    }

    private static func custom(bucket: String, url: StorageEndpointURL, addressing: S3Addressing) -> S3Endpoint {
        let pathStyle = S3Endpoint(scheme: url.scheme, authority: url.authority, keyPrefix: url.path + "/\(bucket)/")
        switch addressing {
        case .bucketHost:
            return S3Endpoint(scheme: url.scheme, authority: url.authority, keyPrefix: url.path + "/")
        case .auto, .path:
            return pathStyle
        case .virtual:
            guard !url.isIPAddress,
                isVirtualHostable(bucket, allowDots: false)
                    || (url.scheme == "http" && isVirtualHostable(bucket, allowDots: true))
            else { return pathStyle }
            return S3Endpoint(scheme: url.scheme, authority: "\(bucket).\(url.authority)", keyPrefix: url.path + "/")
        }
    }

    private static func aws(bucket: String, region: String, addressing: S3Addressing) -> S3Endpoint {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        let partitionIsAWS = !region.hasPrefix("cn-") && !region.hasPrefix("us-gov-") && !region.hasPrefix("us-iso")
        // botocore `_should_use_global_endpoint` and handlers `_set_s3_presign_global_endpoint`.
        let global = partitionIsAWS && addressing == .auto && isValidHostLabel(bucket, allowDots: false)
        let host = global || region == "us-east-1" ? "s3.amazonaws.com" : "s3.\(region).\(suffix)"
        if addressing != .path, isVirtualHostable(bucket, allowDots: false) {
            return S3Endpoint(scheme: "https", authority: "\(bucket).\(host)", keyPrefix: "/")
        }
        return S3Endpoint(scheme: "https", authority: host, keyPrefix: "/\(bucket)/")
    }

    /// RFC 1123 labels as botocore's `VALID_HOST_LABEL_RE` (`^(?!-)[a-zA-Z\d-]{1,63}(?<!-)$`).
    static func isValidHostLabel(_ text: String, allowDots: Bool) -> Bool {
        let labels = allowDots ? text.split(separator: ".", omittingEmptySubsequences: false) : [Substring(text)]
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy {
                    SigV4Encoding.isUnreserved($0) && $0 != UInt8(ascii: ".")
                        && $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "~")
                }
        }
    }

    /// The ruleset's `aws.isVirtualHostableS3Bucket`: at least 3 characters, no capitals,
    /// not an IPv4 address, valid host label(s).
    static func isVirtualHostable(_ bucket: String, allowDots: Bool) -> Bool {
        bucket.utf8.count >= 3 && bucket.lowercased() == bucket
            && StorageEndpointURL("http://\(bucket)").map { !$0.isIPAddress } ?? false
            && isValidHostLabel(bucket, allowDots: allowDots)
    }

    /// Bytes a bucket name may hold in a URL without escaping: letters, digits, `.-_`.
    private static func isBucketByte(_ byte: UInt8) -> Bool {
        SigV4Encoding.isUnreserved(byte) && byte != UInt8(ascii: "~")
    }
}
