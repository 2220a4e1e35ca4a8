// Shared declarations of the fake CUDA driver (libcuda.so.1 for tests). Internal to the fake:
// nothing here is exported; exports.map lists the four symbols the library shows to dlsym.
#pragma once
#include "kinds/cuda_api.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>
#include <sys/types.h>
#include <type_traits>

// Handles are pointers to incomplete structs in cuda_api.hpp; the fake completes them here.
namespace hygaspi::cuda {
struct CUctx_st {
  CUdevice device = 0;
  int refs = 0; // primary context retain count; the context is usable while refs > 0
};
} // namespace hygaspi::cuda

namespace fake_cuda {
using namespace hygaspi::cuda;

// What HYGASPI_FAKE_CUDA asked for, read once at first use.
struct Knobs {
  int devices = 1;         // devices=N (nodevice: 0)
  bool uva = true;         // nouva clears it
  bool oom = false;        // cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY
  bool stub = false;       // every call but cuGetProcAddress fails with CUDA_ERROR_STUB_LIBRARY
  bool defer = false;      // asynchronous copies wait in their stream until someone waits for them
  bool nopin = false;      // cuMemHostRegister fails with CUDA_ERROR_NOT_SUPPORTED
  bool strictfree = false; // cuMemFree of memory another process has open fails (CUDA_ERROR_INVALID_VALUE)
  bool slow = false;       // with defer: queried work stays NOT_READY for kSlowMs after the first query
};
inline constexpr int kSlowMs = 100;
const Knobs &knobs();

// The checks every call makes first: the stub knob, then cuInit. SUCCESS when the call may go on.
CUresult ready();
// ready(), then a current context of this thread: INVALID_CONTEXT without one.
CUresult ready_with_context(CUcontext *current);
// The primary context of `device` (valid ordinal).
CUcontext primary_context(CUdevice device);

// One device allocation, made here (cuMemAlloc) or opened from another process's IPC handle.
// The device address is a PROT_NONE mapping of the memfd, so the CPU faults on it; the fake copies
// through `alias`, a read-write mapping of the same memfd. The destructor unmaps both, so copies
// still queued on a stream keep the memory alive by holding a shared_ptr.
struct Allocation {
  CUdeviceptr base = 0;
  std::size_t size = 0;
  unsigned char *alias = nullptr;
  int fd = -1;                 // the memfd: kept open for export; an opened one's holds a shared flock
  std::uint64_t buffer_id = 0; // the exporter's id for an opened allocation
  std::uint64_t nonce = 0;     // random, also in the memfd's name, so a reused fd number is caught
  CUdevice device = 0;
  bool opened = false;      // true: came from cuIpcOpenMemHandle
  pid_t exporter = 0;       // opened only
  int open_refs = 0;        // opened only: cuIpcOpenMemHandle count minus cuIpcCloseMemHandle count
  unsigned sync_memops = 0; // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS as last set

  Allocation() = default;
  Allocation(const Allocation &) = delete;
  Allocation &operator=(const Allocation &) = delete;
  ~Allocation();
};

// One queued copy: raw addresses, with the allocations they lie in held alive.
struct Copy {
  std::shared_ptr<Allocation> dst_hold, src_hold;
  std::shared_ptr<std::vector<unsigned char>> staged; // a host source taken at the call (`src` points into it)
  void *dst = nullptr;
  const void *src = nullptr;
  std::size_t bytes = 0;
  void run() const;
};

// Streams (fake_streams.cpp). enqueue performs the copy at once, or queues it under `defer`;
// INVALID_HANDLE for a stream handle that is not live.
CUresult enqueue(CUstream stream, Copy copy);
// Before a synchronous copy: everything pending on the legacy default stream and on the blocking
// streams is done, as the legacy default stream orders them in a real driver.
void finish_legacy_work();

// The CUDA entry points, by their CUDA names, declared from HYGASPI_CUDA_FUNCTIONS with the types
// it pins; fake_cuda.cpp builds the cuGetProcAddress table from the same list. A definition whose
// return type differs does not compile; one whose parameters differ is another overload, which
// FAKE_CUDA_CHECK_TYPES (at the end of each source file) rejects, since the name then no longer
// names one function.
namespace api {
#define FAKE_CUDA_DECLARE(name, version, type) std::type_identity_t<type> name;
HYGASPI_CUDA_FUNCTIONS(FAKE_CUDA_DECLARE)
#undef FAKE_CUDA_DECLARE
} // namespace api

#define FAKE_CUDA_CHECK_TYPE(name, version, type)                                                                      \
  static_assert(std::is_same_v<decltype(&::fake_cuda::api::name), std::add_pointer_t<type>>,                           \
                #name " has the wrong type");
#define FAKE_CUDA_CHECK_TYPES HYGASPI_CUDA_FUNCTIONS(FAKE_CUDA_CHECK_TYPE)

} // namespace fake_cuda
