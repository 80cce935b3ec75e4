import ProtobufWire
/// The encoded bytes of one feed item with holes for what changes between viewers and likes
/// (`likes`, `liked`, `seen`), rendered once per live-list change and URL grid window. Filling
/// the holes gives exactly the bytes `FeedItem.jsonBytes()` / `protobufBytes()` give for the
/// same values, so a feed assembled from templates is byte-equal to `FeedResponse`'s encoding.
public final class FeedItemTemplate: Sendable {
    /// JSON: the blank item's bytes without the values of the three holes, which are spliced in
    /// at `jsonHoles` (in the order they appear). One array and no per-hole arrays: a request
    /// fills twenty templates, and every array read is a retain and a release.
    private let json: [UInt8]
    private let jsonHoles: (HoleAt, HoleAt, HoleAt)
    /// Protobuf: the fields before `likes` (1–3) and after `seen` (7 on).
    private let protobufHead: [UInt8]
    private let protobufTail: [UInt8]
    /// The first 16 bytes of the SHA-256 of the item's JSON without likes and flags: what the
    /// feed's entity tag is computed from instead of the whole body. Two words, not an array, so
    /// reading it takes no reference count.
    let digest: (UInt64, UInt64)
    /// Unix seconds from which these bytes are out of date although the preview is not (its
    /// `stale` flag turns true then), so a snapshot rendered from then on renders it again;
    /// `Int64.max`: never.
    public let validUntil: Int64

    private enum Hole: Sendable {
        case likes, liked, seen
    }

    /// A hole and where its value goes in `json`.
    private struct HoleAt: Sendable {
        let hole: Hole
        let offset: Int
    }

    /// `item`'s `likes`, `liked` and `seen` are ignored: they are filled per request.
    public init(_ item: FeedItem, crypto: some CryptoPrimitives, validUntil: Int64 = .max) {
        self.validUntil = validUntil
        var blank = item
        blank.likes = 0
        blank.liked = false
        blank.seen = false
        let json = blank.jsonBytes()
        digest = crypto.sha256(json).withUnsafeBytes {
            (
                UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
        (self.json, jsonHoles) = Self.split(json)
        var head = FeedItem(streamId: item.streamId, movieUrl: item.movieUrl, thumbnailUrl: item.thumbnailUrl)
        protobufHead = head.protobufBytes()
        head = blank
        head.streamId = 0
        head.movieUrl = ""
        head.thumbnailUrl = ""
        protobufTail = head.protobufBytes()
    }

    /// Appends the item's JSON object.
    public func appendJSON(to bytes: inout [UInt8], likes: Int64, liked: Bool, seen: Bool) {
        json.withUnsafeBufferPointer { json in
            var position = 0
            func fill(_ at: HoleAt) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: json[position..<at.offset]))
                position = at.offset
                switch at.hole {
                case .likes: bytes.append(contentsOf: String(likes).utf8)
                case .liked: bytes.append(contentsOf: liked ? "true".utf8 : "false".utf8)
                case .seen: bytes.append(contentsOf: seen ? "true".utf8 : "false".utf8)
                }
            }
            fill(jsonHoles.0)
            fill(jsonHoles.1)
            fill(jsonHoles.2)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: json[position...]))
        }
    }

    /// Appends the item as field 1 of `FeedResponse` (tag, length, message).
    public func appendProtobufField(to bytes: inout [UInt8], likes: Int64, liked: Bool, seen: Bool) {
        var middle = ProtoWriter()
        middle.writeInt64(field: 4, likes)
        middle.writeBool(field: 5, liked)
        middle.writeBool(field: 6, seen)
        var prefix = ProtoWriter()
        prefix.writeTag(field: 1, wireType: .lengthDelimited)
        prefix.writeVarint(UInt64(protobufHead.count + middle.bytes.count + protobufTail.count))
        bytes.append(contentsOf: prefix.bytes)
        bytes.append(contentsOf: protobufHead)
        bytes.append(contentsOf: middle.bytes)
        bytes.append(contentsOf: protobufTail)
    }

    /// Appends `digest`'s 16 bytes as the hash gave them.
    func appendDigest(to bytes: inout [UInt8]) {
        Self.appendLittleEndian(digest.0, to: &bytes)
        Self.appendLittleEndian(digest.1, to: &bytes)
    }

    /// Appends `value`'s 8 bytes, least significant first (byte by byte: appending a raw buffer
    /// goes through a generic iterator).
    static func appendLittleEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    /// An upper bound of the item's encoded size, for reserving capacity.
    public var estimatedSize: Int {
        max(json.count, protobufHead.count + protobufTail.count) + 48
    }

    /// The markers of the blank item's holes. A marker cannot occur inside a JSON string: there
    /// every `"` is escaped, so a quote is never followed by a key and another unescaped quote.
    /// It can occur inside `labels`, whose keys the commit hook chooses (`"likes":"0"`), but that
    /// object comes before the three keys (members are in byte order), so the last occurrence
    /// is the item's own.
    private static let markers: [(Hole, [UInt8], valueOffset: Int)] = [
        (.likes, Array("\"likes\":\"0\"".utf8), 9),
        (.liked, Array("\"liked\":false".utf8), 8),
        (.seen, Array("\"seen\":false".utf8), 7),
    ]

    private static func split(_ json: [UInt8]) -> ([UInt8], (HoleAt, HoleAt, HoleAt)) {
        var found: [(start: Int, end: Int, hole: Hole)] = []
        for (hole, marker, valueOffset) in markers {
            guard let start = lastIndex(of: marker, in: json) else {
                preconditionFailure("FeedItem JSON lacks \(String(decoding: marker, as: UTF8.self))")
            }
            let valueStart = start + valueOffset
            let valueEnd = hole == .likes ? valueStart + 1 : start + marker.count
            found.append((valueStart, valueEnd, hole))
        }
        found.sort { $0.start < $1.start }
        var blank: [UInt8] = []
        var holes: [HoleAt] = []
        var position = 0
        for hole in found {
            blank.append(contentsOf: json[position..<hole.start])
            holes.append(HoleAt(hole: hole.hole, offset: blank.count))
            position = hole.end
        }
        blank.append(contentsOf: json[position...])
        return (blank, (holes[0], holes[1], holes[2]))
    }

    private static func lastIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in (0...(haystack.count - needle.count)).reversed()
        where haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
