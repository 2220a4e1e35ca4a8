// A fake CUDA driver for tests: built as libcuda.so.1, loaded by the runtime in place of the real
// driver, so that the CUDA memory kind runs on machines without a GPU. It is strict where a real
// driver is strict and stricter where that catches runtime bugs: device memory faults when the
// CPU touches it, a function asked for at a version below its pin is refused, and only the four
// entry points a loader may dlsym are exported (exports.map).
//
// This file: the knobs, initialisation, error names, devices, contexts, and the cuGetProcAddress
// table. fake_memory.cpp holds allocations, copies, pointer attributes and IPC; fake_streams.cpp
// streams and events.
//
// HYGASPI_FAKE_CUDA, a comma-separated list read once:
//   nodevice   cuInit fails with CUDA_ERROR_NO_DEVICE (same as devices=0)
//   devices=N  N devices (default 1)
//   nouva      CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING reads 0
//   oom        cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY
//   nopin      cuMemHostRegister fails with CUDA_ERROR_NOT_SUPPORTED (memory that cannot be locked)
//   strictfree cuMemFree of memory that another process still has open through IPC fails with
//              CUDA_ERROR_INVALID_VALUE (a real driver frees it later, or never: undefined)
//   stub       every call fails with CUDA_ERROR_STUB_LIBRARY, like the toolkit's stub libcuda;
//              cuGetProcAddress still hands out the functions
//   defer      asynchronous copies wait in their stream until it is synchronized, destroyed or
//              queried twice (the first query answers CUDA_ERROR_NOT_READY), or until an event
//              recorded after them is synchronized or queried twice; and so do the "synchronous"
//              copies that a real driver may return from before they are done (cuMemcpy* into
//              device memory: fake_memory.cpp, copy_now), on the legacy default stream
//   slow       with defer: queries keep answering CUDA_ERROR_NOT_READY for kSlowMs after the first
//              one (a copy that takes a while), so a wait for a copy lasts that long
#include "fake_cuda.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <vector>

namespace fake_cuda {
namespace {

constexpr int kDriverVersion = 13000;
constexpr int kMaxDevices = 64;

[[noreturn]] void bad_knob(std::string_view item) {
  std::fprintf(stderr, "fake libcuda: HYGASPI_FAKE_CUDA: unknown item '%.*s'\n", static_cast<int>(item.size()),
               item.data());
  std::abort();
}

Knobs parse_knobs(const char *text) {
  Knobs k;
  std::string_view rest = text ? text : "";
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) {
      continue;
    } else if (item == "nodevice") {
      k.devices = 0;
    } else if (item == "nouva") {
      k.uva = false;
    } else if (item == "oom") {
      k.oom = true;
    } else if (item == "strictfree") {
      k.strictfree = true;
    } else if (item == "nopin") {
      k.nopin = true;
    } else if (item == "stub") {
      k.stub = true;
    } else if (item == "defer") {
      k.defer = true;
    } else if (item == "slow") {
      k.slow = true;
    } else if (item.starts_with("devices=")) {
      const std::string_view digits = item.substr(8);
      int n = 0;
      if (digits.empty() || digits.size() > 2)
        bad_knob(item);
      for (const char c : digits) {
        if (c < '0' || c > '9')
          bad_knob(item);
        n = n * 10 + (c - '0');
      }
      if (n > kMaxDevices)
        bad_knob(item);
      k.devices = n;
    } else {
      bad_knob(item);
    }
  }
  return k;
}

std::atomic<bool> g_initialized{false};

// The primary contexts, one per device, never freed: a handle stays the same across
// retain/release cycles. Their refcounts are guarded by contexts_mutex().
std::vector<CUctx_st> &primary_contexts() {
  static std::vector<CUctx_st> contexts = [] {
    std::vector<CUctx_st> v(static_cast<std::size_t>(knobs().devices));
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i].device = static_cast<CUdevice>(i);
    return v;
  }();
  return contexts;
}
std::mutex &contexts_mutex() {
  static std::mutex m;
  return m;
}

// This thread's context stack; the current context is the top.
thread_local std::vector<CUcontext> t_stack;

bool valid_device(CUdevice dev) { return dev >= 0 && dev < knobs().devices; }

// One of the primary contexts, still retained.
bool live_context(CUcontext ctx) {
  auto &contexts = primary_contexts();
  if (contexts.empty() || ctx < contexts.data() || ctx >= contexts.data() + contexts.size())
    return false;
  std::lock_guard lock(contexts_mutex());
  return ctx->refs > 0;
}

struct ErrorText {
  CUresult code;
  const char *name;
  const char *text;
};
constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

CUresult error_text(CUresult error, const char **pStr, bool name) {
  if (knobs().stub)
    return CUDA_ERROR_STUB_LIBRARY;
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  for (const auto &e : kErrors) {
    if (e.code == error) {
      *pStr = name ? e.name : e.text;
      return CUDA_SUCCESS;
    }
  }
  *pStr = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

} // namespace

const Knobs &knobs() {
  static const Knobs k = parse_knobs(std::getenv("HYGASPI_FAKE_CUDA"));
  return k;
}

CUresult ready() {
  if (knobs().stub)
    return CUDA_ERROR_STUB_LIBRARY;
  if (!g_initialized.load(std::memory_order_acquire))
    return CUDA_ERROR_NOT_INITIALIZED;
  return CUDA_SUCCESS;
}

CUresult ready_with_context(CUcontext *current) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (t_stack.empty() || !live_context(t_stack.back()))
    return CUDA_ERROR_INVALID_CONTEXT;
  *current = t_stack.back();
  return CUDA_SUCCESS;
}

CUcontext primary_context(CUdevice device) { return &primary_contexts()[static_cast<std::size_t>(device)]; }

namespace api {

CUresult cuInit(unsigned int Flags) {
  if (knobs().stub)
    return CUDA_ERROR_STUB_LIBRARY;
  if (Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (knobs().devices == 0)
    return CUDA_ERROR_NO_DEVICE;
  primary_contexts(); // built here, not inside a later lock
  g_initialized.store(true, std::memory_order_release);
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *driverVersion) {
  if (knobs().stub)
    return CUDA_ERROR_STUB_LIBRARY;
  if (!driverVersion)
    return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = kDriverVersion;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **pStr) { return error_text(error, pStr, true); }
CUresult cuGetErrorString(CUresult error, const char **pStr) { return error_text(error, pStr, false); }

CUresult cuDeviceGetCount(int *count) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = knobs().devices;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(ordinal))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib) {
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    *pi = knobs().uva ? 1 : 0;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *pi = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
    *pi = dev + 1;
    break;
  default:
    *pi = 0;
    break;
  }
  return CUDA_SUCCESS;
}

// "fakecuda" then the ordinal, little-endian: the same in every process.
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!uuid)
    return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  std::memcpy(uuid->bytes, "fakecuda", 8);
  const auto ordinal = static_cast<std::uint64_t>(dev);
  for (int i = 0; i < 8; ++i)
    uuid->bytes[8 + i] = static_cast<char>((ordinal >> (8 * i)) & 0xff);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  const CUcontext ctx = primary_context(dev);
  std::lock_guard lock(contexts_mutex());
  ++ctx->refs;
  *pctx = ctx;
  return CUDA_SUCCESS;
}

// The _v2 semantics: releasing does not touch any thread's context stack. A context released to
// zero stays on the stacks that hold it but is refused by every call that needs a context.
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!valid_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  const CUcontext ctx = primary_context(dev);
  std::lock_guard lock(contexts_mutex());
  if (ctx->refs == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --ctx->refs;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!live_context(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  t_stack.push_back(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *pctx) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (t_stack.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx)
    *pctx = t_stack.back();
  t_stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  *pctx = t_stack.empty() ? nullptr : t_stack.back();
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  *device = ctx->device;
  return CUDA_SUCCESS;
}

} // namespace api

namespace {

// The cuGetProcAddress table, generated from HYGASPI_CUDA_FUNCTIONS: name, pinned version, and the
// fake's function, converted through the macro's own function type.
struct Entry {
  std::string_view name;
  int version;
  void *function;
};
#define FAKE_CUDA_ENTRY(name, version, type)                                                                           \
  Entry{#name, version, reinterpret_cast<void *>(static_cast<std::add_pointer_t<type>>(&api::name))},
const Entry kTable[] = {HYGASPI_CUDA_FUNCTIONS(FAKE_CUDA_ENTRY)};
#undef FAKE_CUDA_ENTRY

// Both exported cuGetProcAddress forms. A name outside the table is not found; so is one asked for
// below its pinned version, where a real driver would hand out an older ABI without a word.
CUresult get_proc_address(const char *symbol, void **pfn, int driverVersion, cuuint64_t flags,
                          CUdriverProcAddressQueryResult *symbolStatus) {
  if (!symbol || !pfn || flags != CU_GET_PROC_ADDRESS_DEFAULT) {
    if (pfn)
      *pfn = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (const Entry &e : kTable) {
    if (e.name != symbol)
      continue;
    if (driverVersion < e.version) {
      *pfn = nullptr;
      if (symbolStatus)
        *symbolStatus = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
      return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = e.function;
    if (symbolStatus)
      *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  *pfn = nullptr;
  if (symbolStatus)
    *symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

} // namespace

FAKE_CUDA_CHECK_TYPES

} // namespace fake_cuda

// The exported entry points: those a loader finds with dlsym. Everything else is reached through
// cuGetProcAddress only, so a runtime that dlsyms a legacy name (cuMemAlloc) finds nothing.
using hygaspi::cuda::CUdriverProcAddressQueryResult;
using hygaspi::cuda::CUresult;
using hygaspi::cuda::cuuint64_t;

#define FAKE_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

FAKE_CUDA_EXPORT CUresult cuInit(unsigned int Flags) { return fake_cuda::api::cuInit(Flags); }
FAKE_CUDA_EXPORT CUresult cuDriverGetVersion(int *driverVersion) {
  return fake_cuda::api::cuDriverGetVersion(driverVersion);
}
FAKE_CUDA_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int driverVersion, cuuint64_t flags) {
  return fake_cuda::get_proc_address(symbol, pfn, driverVersion, flags, nullptr);
}
FAKE_CUDA_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int driverVersion, cuuint64_t flags,
                                              CUdriverProcAddressQueryResult *symbolStatus) {
  return fake_cuda::get_proc_address(symbol, pfn, driverVersion, flags, symbolStatus);
}

static_assert(std::is_same_v<decltype(&cuGetProcAddress), hygaspi::cuda::PFN_cuGetProcAddress_v11030>);
static_assert(std::is_same_v<decltype(&cuGetProcAddress_v2), hygaspi::cuda::PFN_cuGetProcAddress_v12000>);
