// Typed wrappers for libcurl's variadic functions, which Swift cannot call.
// One wrapper per argument type curl_easy_setopt / curl_easy_getinfo documents;
// only PreviewHTTPClient uses them.
#pragma once
#include <curl/curl.h>

/// curl_easy_setopt for options taking a `long` (flags, timeouts, sizes below 2 GiB).
static inline CURLcode CShims_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for the `_LARGE` options taking a `curl_off_t`.
static inline CURLcode CShims_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options taking a data pointer (`*DATA`, `ERRORBUFFER`, `HTTPHEADER`).
static inline CURLcode CShims_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options taking a C string; curl copies it (except `ERRORBUFFER`).
static inline CURLcode CShims_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION (both have the write-callback shape).
static inline CURLcode CShims_curl_easy_setopt_write_callback(
    CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// CURLOPT_READFUNCTION.
static inline CURLcode CShims_curl_easy_setopt_read_callback(
    CURL *handle, CURLoption option, curl_read_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// CURLOPT_SEEKFUNCTION.
static inline CURLcode CShims_curl_easy_setopt_seek_callback(
    CURL *handle, CURLoption option, curl_seek_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// CURLOPT_XFERINFOFUNCTION (progress; needs CURLOPT_NOPROGRESS 0).
static inline CURLcode CShims_curl_easy_setopt_xferinfo_callback(
    CURL *handle, CURLoption option, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// curl_easy_getinfo for `CURLINFO_LONG` items (response code, connection counts).
static inline CURLcode CShims_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// CURL_GLOBAL_DEFAULT is a macro expression Swift does not import.
static inline CURLcode CShims_curl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}
