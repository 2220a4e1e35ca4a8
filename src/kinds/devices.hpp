// The CUDA devices of this process, one per ordinal, opened on first use through the driver
// library the knobs name (HYGASPI_CUDA_LIBRARY) and kept for the process's life: a node peer's
// allocation that one of them opened must outlive whatever the client destroys, and every front
// end (GASPI device segments, GASNet-EX memory kinds) copies through the same one.
#pragma once
#include <string>

#include "kinds/cuda_device.hpp"

namespace hygaspi::kinds {

// The device `ordinal` through `library`, or nullptr (no driver, no such device, no unified
// addressing) with `why` set. The first library a process loads is the one it keeps.
CudaDevice *device(const std::string &library, int ordinal, std::string &why);

} // namespace hygaspi::kinds
