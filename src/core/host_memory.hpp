// Whether host memory that a client hands over (a GASPI segment bound over it, a GASNet-EX segment
// created over it) is there to be read and written: every page of the range mapped with read and
// write permission. A range that is not (device memory that the CUDA driver reserved PROT_NONE in
// the unified address space, read-only or unmapped memory) would crash the library at the first
// copy, or make Open MPI's cross-memory attach fail on every retry. [GEX-MK 4.2]: "the required
// accessibility includes read and write permissions (PROT_READ | PROT_WRITE)".
#pragma once
#include <cstdint>
#include <string>

namespace hygaspi {

// True when [p, +n) lies in mappings of this process that are readable and writable (n 0: true).
// Otherwise false, and `why` says which part is not. Reads /proc/self/maps: for creation calls,
// not for the data path.
[[nodiscard]] bool host_accessible(const void *p, std::uint64_t n, std::string &why);

} // namespace hygaspi
