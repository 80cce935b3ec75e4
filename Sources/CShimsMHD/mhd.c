// Shims for libmicrohttpd's variadic functions; see CShimsMHD.h.
#include "CShimsMHD.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Set only while CShims_mhd_start runs on this thread: MHD reports bind/listen failures
// synchronously from MHD_start_daemon, so the caller can get the reason as text.
static _Thread_local char *start_error;
static _Thread_local size_t start_error_size;

// Writes `message` into `out` as a quoted logfmt value: MHD's messages can quote what a client
// sent, so quotes, backslashes, control bytes (a `\r` or `\n` would split or forge a line) and
// every byte outside ASCII (which could start a C1 control, a line separator or a bidi control)
// are escaped, the others as `\u00XX` like the Swift side's. `out` holds at least 6 bytes per
// byte of `message` plus 3.
static void quote(char *out, const char *message) {
  static const char hex[] = "0123456789abcdef";
  *out++ = '"';
  for (const unsigned char *p = (const unsigned char *)message; *p != '\0'; p++) {
    char escape = 0;
    switch (*p) {
      case '"': escape = '"'; break;
      case '\\': escape = '\\'; break;
      case '\n': escape = 'n'; break;
      case '\r': escape = 'r'; break;
      case '\t': escape = 't'; break;
      default: break;
    }
    if (escape != 0) {
      *out++ = '\\';
      *out++ = escape;
    } else if (*p < 0x20 || *p >= 0x7F) {
      *out++ = '\\';
      *out++ = 'u';
      *out++ = '0';
      *out++ = '0';
      *out++ = hex[*p >> 4];
      *out++ = hex[*p & 0xF];
    } else {
      *out++ = (char)*p;
    }
  }
  *out++ = '"';
  *out = '\0';
}

static void log_message(void *cls, const char *format, va_list arguments) {
  (void)cls;
  char message[512];
  vsnprintf(message, sizeof message, format, arguments);
  size_t length = strlen(message);
  while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r')) {
    message[--length] = '\0';
  }
  if (start_error != NULL) {
    if (start_error[0] == '\0') {
      snprintf(start_error, start_error_size, "%s", message);
    }
    return;
  }
  char quoted[sizeof message * 6 + 3];
  quote(quoted, message);
  fprintf(stderr, "component=http-server event=microhttpd-error message=%s\n", quoted);
}

// Leaves escapes as sent: the app verifies signatures over the raw target, and the adapter
// takes the path and query from the URI log callback, never from MHD's parsed copies.
static size_t keep_escapes(void *cls, struct MHD_Connection *connection, char *s) {
  (void)cls;
  (void)connection;
  return strlen(s);
}

struct MHD_Daemon *CShims_mhd_start(const struct CShims_mhd_settings *s, char *error,
                                    size_t error_size) {
  if (error != NULL && error_size > 0) {
    error[0] = '\0';
  }
  // For options taking a function and a closure, the function goes in `value`.
  struct MHD_OptionItem options[] = {
      {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)log_message, NULL},
      {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)s->thread_pool_size, NULL},
      {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)s->connection_limit, NULL},
      {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)s->per_ip_connection_limit, NULL},
      {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)s->connection_timeout_seconds, NULL},
      {MHD_OPTION_LISTEN_BACKLOG_SIZE, (intptr_t)s->listen_backlog, NULL},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)s->connection_memory_limit, NULL},
      {MHD_OPTION_SOCK_ADDR, 0, (void *)s->address},
      {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)s->uri_log, s->context},
      {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)s->completed, s->context},
      {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)s->notify_connection, s->context},
      {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)keep_escapes, NULL},
      {MHD_OPTION_END, 0, NULL},
  };
  start_error = error_size > 0 ? error : NULL;
  start_error_size = error_size;
  // The port argument is ignored when MHD_OPTION_SOCK_ADDR is given.
  struct MHD_Daemon *daemon =
      MHD_start_daemon(s->flags, 0, NULL, NULL, s->access_handler, s->context,
                       MHD_OPTION_ARRAY, options, MHD_OPTION_END);
  start_error = NULL;
  start_error_size = 0;
  return daemon;
}

uint16_t CShims_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

const struct sockaddr *CShims_mhd_client_address(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return info == NULL ? NULL : info->client_addr;
}

int CShims_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

void *CShims_mhd_socket_context(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info == NULL ? NULL : info->socket_context;
}
