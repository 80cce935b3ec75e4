// Umbrella header: C helpers for what Swift cannot call (variadic functions, macros).
#pragma once
#include "CShims_curl.h"
#include "CShims_mhd.h"
