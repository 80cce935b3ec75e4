// Linux's epoll, which Swift's Glibc module does not include; part of the C library itself, so
// nothing to link. Used only by PreviewHTTPServer/PeerHangups.swift.
#include <sys/epoll.h>
