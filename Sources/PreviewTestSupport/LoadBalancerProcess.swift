// nginx as a round-robin load balancer in front of `serve` replicas, for the end-to-end tests. Linux (glibc) only.
import Foundation
import PreviewProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's nginx on a loopback port, proxying every request round-robin to `upstreams` (`host:port`), with the
/// settings a deployment in front of `serve` needs: HTTP/1.1 with kept-alive upstream connections (closed before
/// serve's 30 s `--idle-timeout` would close them under a request), request bodies streamed as they arrive, no body
/// size limit of its own (serve enforces its limits and answers them with its error codes), and `Host` and
/// `X-Request-Id` passed on. Every answer, nginx's own errors included, carries `X-Test-Upstream`
/// (`$upstream_addr`): the replica that served it, so a test can see the traffic reached each of them.
///
/// Its configuration, pid file, logs and temp folders live in `directory`. It runs as one process
/// (`master_process off`, `daemon off`) under `setpriv --pdeathsig KILL`: with a master, the workers would outlive
/// a SIGKILLed test run. `stop()` (or deinit) sends SIGTERM (nginx's fast shutdown), SIGKILL after 5 s.
public final class LoadBalancerProcess: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    public let port: UInt16
    /// Where nginx logs its errors and each request (with the upstream that served it).
    public let errorLogPath: String
    public let accessLogPath: String
    private let child: ChildProcess

    /// The header every answer carries: the upstream address that served it (`$upstream_addr`).
    public static let upstreamHeader = "X-Test-Upstream"
    /// Debian's nginx (package `nginx`, or `nginx-light`, which installs it).
    public static let executable = "/usr/sbin/nginx"

    /// Writes the configuration into `directory`, starts nginx listening on `127.0.0.1:port`, and waits up to 10 s
    /// until it accepts connections.
    public init(port: UInt16, upstreams: [String], directory: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw ServiceProcessError("\(Self.executable) is missing: install nginx (scripts/install-deps.sh test)")
        }
        self.port = port
        baseURL = "http://127.0.0.1:\(port)"
        errorLogPath = directory + "/nginx-error.log"
        accessLogPath = directory + "/nginx-access.log"
        let configuration = directory + "/nginx.conf"
        try Data(Self.configuration(port: port, upstreams: upstreams, directory: directory).utf8)
            .write(to: URL(fileURLWithPath: configuration))
        // -e: the error log before the configuration is read (else nginx tries /var/log/nginx first).
        child = try ChildProcess.spawn(
            arguments: [Self.executable, "-e", errorLogPath, "-p", directory + "/", "-c", configuration],
            stdoutPath: directory + "/nginx-output.log", diesWithParent: true)
        let started = eventually(within: 10) {
            guard !child.hasExited, let fd = try? RawSocket.connect(host: "127.0.0.1", port: port) else { return false }
            _ = close(fd)  // ignored result: a probe connection that sent nothing
            return true
        }
        guard started else {
            stop()
            let log = (try? String(contentsOfFile: errorLogPath, encoding: .utf8)) ?? ""
            throw ServiceProcessError("nginx did not listen on 127.0.0.1:\(port) within 10 s:\n\(log.suffix(2000))")
        }
    }

    deinit { stop() }

    /// nginx's process id.
    public var pid: Int32 { child.pid }

    /// SIGTERM (fast shutdown), up to 5 s to exit, then SIGKILL. Idempotent.
    public func stop() {
        child.send(SIGTERM)
        if !child.waitForExit(timeout: 5) {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
        }
    }

    /// The nginx configuration: one server on `127.0.0.1:port`, plain round-robin over `upstreams`.
    static func configuration(port: UInt16, upstreams: [String], directory: String) -> String {
        // max_fails=0: an upstream error never takes a replica out of the rotation, so the split stays even.
        let servers = upstreams.map { "        server \($0) max_fails=0;" }.joined(separator: "\n")
        return """
            daemon off;
            master_process off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/nginx-error.log warn;
            events { worker_connections 4096; }
            http {
                log_format upstream '$remote_addr "$request" $status $body_bytes_sent upstream=$upstream_addr '
                    'request_id=$http_x_request_id';
                access_log \(directory)/nginx-access.log upstream;
                client_body_temp_path \(directory)/nginx-client-body;
                proxy_temp_path \(directory)/nginx-proxy;
                fastcgi_temp_path \(directory)/nginx-fastcgi;
                uwsgi_temp_path \(directory)/nginx-uwsgi;
                scgi_temp_path \(directory)/nginx-scgi;
                upstream streampreview {
            \(servers)
                    keepalive 32;
                    keepalive_timeout 20s;
                }
                server {
                    listen 127.0.0.1:\(port);
                    client_max_body_size 0;
                    location / {
                        proxy_pass http://streampreview;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Request-Id $http_x_request_id;
                        proxy_request_buffering off;
                        add_header \(upstreamHeader) $upstream_addr always;
                    }
                }
            }

            """
    }
}
