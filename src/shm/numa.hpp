// NUMA placement of segment memory (GASPI_ALLOC_NUMA_LOCAL / GASPI_ALLOC_NUMA_INTERLEAVE), with
// hwloc. The policy is set on a shared mapping of a shm object before its pages exist: on tmpfs
// it becomes the object's shared policy, which the kernel follows when posix_fallocate (or a
// first touch) allocates the pages. Pages that already exist are not moved.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace hygaspi::shm {

// Binds [addr, addr + bytes) (page aligned) to the caller's NUMA node (local), or interleaves it
// over every NUMA node this process may use (interleave). `policy` holds GASPI_ALLOC_* bits;
// without a NUMA bit nothing happens. Returns false, with `error` set, when hwloc or the kernel
// refuses; the caller may go on with the default placement.
bool set_numa_policy(void *addr, std::size_t bytes, std::uint64_t policy, std::string &error);

} // namespace hygaspi::shm
