// The CUDA driver, loaded at run time (dlopen, then cuGetProcAddress at pinned versions): one
// binary of the library serves machines with a GPU, without one, and without any CUDA at all.
#pragma once
#include <string>

#include "kinds/cuda_api.hpp"

namespace hygaspi::cuda {

// The driver of `library` (a file name the dynamic loader searches, or a path), loaded and
// initialised (cuInit) by the first call of the process; later calls return that outcome whatever
// their `library`. nullptr when it cannot be used, with `why` saying why in one line: no such
// library, a library without cuGetProcAddress or without one of the functions at its version, or
// cuInit's error (CUDA_ERROR_STUB_LIBRARY from the toolkit's stub, CUDA_ERROR_NO_DEVICE, ...).
// Thread-safe.
const Driver *load(const std::string &library, std::string &why) noexcept;

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for messages; works without a driver.
std::string describe(const Driver *driver, CUresult r);

} // namespace hygaspi::cuda
