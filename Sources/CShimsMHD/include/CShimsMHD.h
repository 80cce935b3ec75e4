// Shims for libmicrohttpd 0.9.75: its daemon start and info queries are variadic, which
// Swift cannot call. Used only by PreviewHTTPServer.
#pragma once
#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/// MHD_OPTION_URI_LOG_CALLBACK's function type (the header has no typedef for it): receives
/// the raw request target before MHD parses it; the return value becomes `*req_cls`.
typedef void *(*CShims_mhd_uri_log_callback)(void *cls, const char *uri,
                                             struct MHD_Connection *connection);

/// Everything CShims_mhd_start passes to MHD_start_daemon.
struct CShims_mhd_settings {
  unsigned int flags;  // MHD_FLAG values OR-ed together
  unsigned int thread_pool_size;
  unsigned int connection_limit;
  unsigned int per_ip_connection_limit;  // MHD_OPTION_PER_IP_CONNECTION_LIMIT; 0 = none
  unsigned int connection_timeout_seconds;  // inactivity timeout

  unsigned int listen_backlog;
  size_t connection_memory_limit;
  const struct sockaddr *address;  // sockaddr_in, or sockaddr_in6 with MHD_USE_IPv6
  MHD_AccessHandlerCallback access_handler;
  MHD_RequestCompletedCallback completed;
  CShims_mhd_uri_log_callback uri_log;
  MHD_NotifyConnectionCallback notify_connection;  // connection opened / about to be closed
  void *context;  // cls for all four callbacks
};

/// Starts a daemon with `settings` (through MHD_OPTION_ARRAY, MHD_start_daemon being
/// variadic). URIs are never unescaped. On failure returns NULL and writes MHD's first error
/// message (e.g. "Failed to bind to port 8080: Address already in use") into `error`.
/// Later MHD errors are written to stderr, one line each.
struct MHD_Daemon *CShims_mhd_start(const struct CShims_mhd_settings *settings, char *error,
                                    size_t error_size);

/// The port the daemon listens on (MHD_DAEMON_INFO_BIND_PORT); 0 if unknown.
uint16_t CShims_mhd_bound_port(struct MHD_Daemon *daemon);

/// The peer's address (MHD_CONNECTION_INFO_CLIENT_ADDRESS), or NULL.
const struct sockaddr *CShims_mhd_client_address(struct MHD_Connection *connection);

/// The connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD), or -1.
int CShims_mhd_connection_fd(struct MHD_Connection *connection);

/// The connection's `*socket_context` set by the MHD_OPTION_NOTIFY_CONNECTION callback
/// (MHD_CONNECTION_INFO_SOCKET_CONTEXT), or NULL.
void *CShims_mhd_socket_context(struct MHD_Connection *connection);
