import Foundation
import PreviewCore
import Testing

/// Reading a commit hook's verdict, the bounds on its labels, and the body it is sent.
@Suite("Commit hook: answers, labels and the call's body")
struct CommitHookAnswerTests {
    func parse(_ json: String, status: Int = 200) -> Result<CommitHookVerdict, CommitHookAnswerError> {
        CommitHookAnswer.parse(status: status, body: Array(json.utf8))
    }

    func failure(_ json: String, status: Int = 200) -> String? {
        guard case .failure(let error) = parse(json, status: status) else { return nil }
        return error.description
    }

    @Test("allow, with or without labels; members the hook adds are ignored; any 2xx will do")
    func allows() {
        #expect(parse(#"{"allow":true}"#) == .success(.allow(labels: [:])))
        #expect(parse(#"{"allow":true,"labels":null,"reason":"ignored"}"#) == .success(.allow(labels: [:])))
        #expect(
            parse(#" {"labels":{"rating":"general","a.b-c_9":""},"allow":true,"x":{"y":[1]}} "#, status: 204)
                == .success(.allow(labels: ["rating": "general", "a.b-c_9": ""])))
    }

    @Test("refuse, with the reason, none, or one cut to 1024 bytes on a character boundary")
    func refuses() {
        #expect(parse(#"{"allow":false,"reason":"nudity"}"#) == .success(.refuse(reason: "nudity")))
        #expect(parse(#"{"allow":false}"#) == .success(.refuse(reason: "")))
        #expect(parse(#"{"allow":false,"labels":{"BAD":1}}"#) == .success(.refuse(reason: "")), "labels unread")
        let long = "a" + String(repeating: "é", count: 600)
        guard case .success(.refuse(let reason)) = parse(#"{"allow":false,"reason":"\#(long)"}"#) else {
            Issue.record("a long reason is not an error")
            return
        }
        #expect(reason.utf8.count == 1023 && long.hasPrefix(reason))
    }

    @Test("anything that is not a verdict is an error that says why")
    func errors() {
        let cases: [(String, Int, String)] = [
            (#"{"allow":true}"#, 500, "HTTP 500"),
            (#"{"allow":true}"#, 302, "HTTP 302"),
            ("", 200, "not a JSON object"),
            ("allow", 200, "not a JSON object"),
            (#"[{"allow":true}]"#, 200, "not a JSON object"),
            (#"{"allow":false,"allow":true}"#, 200, "distinct keys"),
            (#"{}"#, 200, "no boolean \"allow\""),
            (#"{"allow":"true"}"#, 200, "no boolean \"allow\""),
            (#"{"allow":1}"#, 200, "no boolean \"allow\""),
            (#"{"allow":false,"reason":42}"#, 200, "\"reason\" is not a string"),
            (#"{"allow":true,"labels":[]}"#, 200, "\"labels\" is not a JSON object"),
            (#"{"allow":true,"labels":{"a":"1","a":"2"}}"#, 200, "distinct keys"),
            (#"{"allow":true,"labels":{"rating":1}}"#, 200, "label \"rating\" is not a string"),
            (#"{"allow":true,"labels":{"Rating":"g"}}"#, 200, "key \"Rating\" is not 1 to 64"),
        ]
        for (json, status, expected) in cases {
            let description = failure(json, status: status)
            #expect(description?.contains(expected) == true, "\(json) \(status): \(description ?? "accepted")")
        }
        let big = #"{"allow":true,"pad":""# + String(repeating: "x", count: 64 * 1024) + #""}"#
        #expect(failure(big)?.contains("over 65536 bytes") == true)
    }

    @Test(
        "labels: at most 16, keys 1-64 bytes of a-z 0-9 _ . -, values up to 256 bytes without control, line-separator or bidirectional characters"
    )
    func labelBounds() {
        let sixteen = Dictionary(uniqueKeysWithValues: (0..<16).map { ("k\($0)", "v") })
        #expect(PreviewLabels.problem(sixteen) == nil)
        #expect(PreviewLabels.problem(sixteen.merging(["k16": "v"]) { $1 })?.contains("17 labels") == true)
        #expect(PreviewLabels.problem([String(repeating: "a", count: 64): String(repeating: "é", count: 128)]) == nil)
        for key in ["", String(repeating: "a", count: 65), "A", "a b", "a/b", "é", "a:b", "a\"b"] {
            #expect(PreviewLabels.problem([key: "v"]) != nil, "key \(key.debugDescription)")
        }
        #expect(PreviewLabels.problem(["a": String(repeating: "x", count: 257)])?.contains("257 bytes") == true)
        for value in ["a\nb", "\u{0}", "tab\t", "\u{7F}"] {
            #expect(PreviewLabels.problem(["a": value]) != nil, "value \(value.debugDescription)")
        }
        for value in [
            "gpj\u{202E}exe", "a\u{2028}b", "\u{2029}", "\u{85}", "\u{9B}2J", "\u{2066}x", "\u{200F}", "\u{61C}",
        ] {
            #expect(
                PreviewLabels.problem(["a": value])?.contains("bidirectional character") == true,
                "value \(value.debugDescription)")
        }
        #expect(PreviewLabels.problem(["a": "x\u{202E}"])?.contains("(U+202E)") == true)
        #expect(PreviewLabels.problem(["a": "café 🎬 日本"]) == nil)
        #expect(
            failure(#"{"allow":true,"labels":{"title":"evil\u202egpj.exe"}}"#)?.contains("the hook's labels: title has")
                == true,
            "a hook's answer with such a label is no verdict")
    }

    @Test("labels are kept in the preview hash as a JSON object and read back; foreign text reads as nothing")
    func labelsInTheHash() {
        let labels = ["rating": "general", "lang": "ü \"quoted\""]
        let text = PreviewLabels.encode(labels)
        #expect(text == #"{"lang":"ü \"quoted\"","rating":"general"}"#)
        #expect(PreviewLabels.decode(text) == labels)
        for foreign in ["", "[]", #"{"a":1}"#, #"{"A":"1"}"#, #"{"a":"1","a":"2"}"#] {
            #expect(PreviewLabels.decode(foreign) == nil, "\(foreign)")
        }
    }

    @Test("the call's body: proto3 JSON (int64 as strings), keys in byte order, objects with URL, type, size")
    func callBody() throws {
        let call = CommitHookCall(
            streamId: 9_007_199_254_740_993, uploadId: "0123456789abcdef0123456789abcdef", subject: "sam \"x\"",
            movie: .init(url: "http://127.0.0.1:8080/objects/m?X-Sig=a&b=%2F", contentType: "video/mp4", bytes: 4096),
            thumbnail: .init(url: "http://t/1", contentType: "image/jpeg", bytes: 1024), durationMs: 7500, width: 320,
            height: 180, urlsExpireAt: 1_700_000_305)
        let text = String(decoding: call.jsonBytes(), as: UTF8.self)
        #expect(
            text
                == #"{"durationMs":"7500","height":180,"movie":{"bytes":"4096","contentType":"video/mp4","url":"http://127.0.0.1:8080/objects/m?X-Sig=a&b=%2F"},"streamId":"9007199254740993","subject":"sam \"x\"","thumbnail":{"bytes":"1024","contentType":"image/jpeg","url":"http://t/1"},"type":"preview.commit","uploadId":"0123456789abcdef0123456789abcdef","urlsExpireAt":"1700000305","width":320}"#
        )
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(call.jsonBytes())) as? [String: Any])
        #expect(decoded["subject"] as? String == "sam \"x\"")
    }
}
