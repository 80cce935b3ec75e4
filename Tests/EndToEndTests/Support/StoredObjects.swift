import Foundation
import PreviewCore
import PreviewTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The object key of a local-store URL (`http://host:port/objects/<key>?...`), percent-decoded.
func objectKey(ofURL url: String) -> String? {
    guard let target = try? RawHTTPTarget(url) else { return nil }
    let path = target.pathAndQuery.prefix { $0 != "?" }
    guard path.hasPrefix(Route.objectsPrefix) else { return nil }
    return String(
        decoding: PercentDecoding.lenient(path.dropFirst(Route.objectsPrefix.count)), as: UTF8.self)
}

/// The bytes the server stored under `key` (its data dir holds objects under `objects/data/<key>`),
/// or nil when there is no such object. Throws when the store cannot be inspected (the objects
/// folder is not where it should be, or the file cannot be read), so "not stored" is never
/// concluded from a failed look.
func storedObject(_ service: ServiceProcess, key: String) throws -> [UInt8]? {
    let folder = service.dataDirectory + "/objects/data"
    var info = stat()
    guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
        throw ServiceProcessError("no objects folder at \(folder): the store's layout is not what this test reads")
    }
    let path = folder + "/" + key
    guard let handle = FileHandle(forReadingAtPath: path) else {
        if stat(path, &info) != 0, errno == ENOENT { return nil }
        throw ServiceProcessError("\(path) exists but cannot be read: \(String(cString: strerror(errno)))")
    }
    defer { try? handle.close() }  // read-only
    return [UInt8](try handle.readToEnd() ?? Data())
}

/// `storedObject` for the object a URL names.
func storedObject(_ service: ServiceProcess, url: String) throws -> [UInt8]? {
    guard let key = objectKey(ofURL: url) else { throw ServiceProcessError("not an object URL: \(url)") }
    return try storedObject(service, key: key)
}
