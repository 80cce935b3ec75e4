// The curl shims are static inline in the header; a C target needs one source file.
#include "CShimsCurl.h"
