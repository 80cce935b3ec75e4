import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `delete(keys:concurrency:)` of the embedded store, on real files.
@Suite struct LocalObjectStoreDeleteTests {
    let directory: String
    let store: LocalObjectStore

    init() throws {
        directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-local-delete")
        store = try LocalObjectStore(
            root: directory + "/objects", publicBaseURL: nil, secret: "storage-secret", grid: ExpiryGrid(),
            crypto: OpenSSLCrypto())
    }

    /// Every regular file under `folder`, relative to it, sorted.
    func files(under folder: String) throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
        var found: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                found.append(path)
            }
        }
        return found.sorted()
    }

    @Test func deletingAThousandKeysRemovesExactlyThoseFilesAndTheirEmptyFolders() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp folder
        let keys = (0..<1_100).map { "previews/s\($0 % 7)/u\($0 / 2)/\($0 % 2 == 0 ? "movie.mp4" : "thumb.jpg")" }
        for (index, key) in keys.enumerated() {
            try LocalSeed.object(store, key: key, bytes: [UInt8(index % 256), 1, 2])
        }
        let doomed = Array(keys[..<1_000])
        let kept = Array(keys[1_000...])

        let failed = store.delete(keys: doomed + ["previews/never/was.mp4", "../escape", ""], concurrency: 8)

        #expect(failed.isEmpty)
        #expect(try files(under: directory + "/objects/data") == kept.sorted())
        #expect(try files(under: directory + "/objects/meta") == kept.sorted())
        for (offset, key) in kept.enumerated() {
            #expect(try store.read(key: key, offset: 0, length: 3) == [UInt8((1_000 + offset) % 256), 1, 2])
        }
        // u0…u499 held only deleted objects: their folders are gone; u500…u549 stay.
        #expect(!FileManager.default.fileExists(atPath: directory + "/objects/data/previews/s0/u0"))
        #expect(FileManager.default.fileExists(atPath: directory + "/objects/data/previews/s0/u504"))
    }

    @Test func oneKeyThatCannotBeDeletedIsReportedAndTheOthersAreStillDeleted() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp folder
        let keys = (0..<20).map { "previews/1/u\($0)/movie.mp4" }
        for key in keys { try LocalSeed.object(store, key: key, bytes: [1]) }
        // A directory where an object's file would be: unlink(2) refuses it (EISDIR).
        let blocked = "previews/1/blocked/movie.mp4"
        try FileManager.default.createDirectory(
            atPath: directory + "/objects/data/" + blocked, withIntermediateDirectories: true)

        let failed = store.delete(keys: keys + [blocked], concurrency: 4)

        #expect(Set(failed.keys) == [blocked])
        #expect(failed[blocked].map { !$0.unreachable && $0.description.contains("cannot delete") } == true)
        #expect(try files(under: directory + "/objects/data").isEmpty)
    }

    @Test func deletingOneKeyAndDeletingItInABatchDoTheSame() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp folder
        try store.write(key: "previews/2/a/movie.mp4", bytes: [1], contentType: "video/mp4")
        try store.write(key: "previews/2/b/movie.mp4", bytes: [1], contentType: "video/mp4")
        try store.delete(key: "previews/2/a/movie.mp4")
        try store.delete(key: "previews/2/a/movie.mp4")
        #expect(store.delete(keys: ["previews/2/b/movie.mp4", "previews/2/b/movie.mp4"], concurrency: 2).isEmpty)
        #expect(try files(under: directory + "/objects/data").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory + "/objects/data/previews/2"))
    }
}

/// Seeds the local store's files directly (`data/<key>`, `meta/<key>`), without the fsyncs of a
/// real upload: setup for delete tests only.
enum LocalSeed {
    static func object(_ store: LocalObjectStore, key: String, bytes: [UInt8]) throws {
        for (folder, contents) in [("data", bytes), ("meta", Array("video/mp4".utf8))] {
            let path = "\(store.root)/\(folder)/\(key)"
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try #require(FileManager.default.createFile(atPath: path, contents: Data(contents)), "seed \(path)")
        }
    }
}
