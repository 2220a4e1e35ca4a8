// Device memory of the fake CUDA driver: allocations, copies, pointer attributes and IPC.
//
// Every allocation is a memfd mapped twice: PROT_NONE at the address handed out as the
// CUdeviceptr, so that a CPU load or store through a device pointer faults, and read-write as a
// private alias through which the fake copies. A process-wide registry maps device addresses to
// allocations; a copy argument inside an allocation is device memory, any other is host memory
// (unified addressing), and a range that straddles an allocation's edge is refused.
//
// IPC: the handle carries the exporter's pid and memfd number; the importer opens
// /proc/<pid>/fd/<fd>, checks the memfd's name (which carries a random nonce and the buffer id,
// so a reused fd number is caught) and its size, and maps it twice like an allocation.
#include "fake_cuda.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace fake_cuda {

Allocation::~Allocation() {
  if (alias)
    munmap(alias, size);
  if (base)
    munmap(reinterpret_cast<void *>(static_cast<std::uintptr_t>(base)), size);
  if (fd >= 0)
    close(fd);
}

void Copy::run() const { std::memmove(dst, src, bytes); }

namespace {

struct Registry {
  std::mutex mutex;
  std::map<CUdeviceptr, std::shared_ptr<Allocation>> by_base;
  std::map<std::pair<pid_t, std::uint64_t>, CUdeviceptr> opened; // (exporter, buffer id) -> base
  std::map<std::uintptr_t, std::size_t> pinned;                  // cuMemHostRegister: start -> bytes
};
// Never destroyed, so that a call made while the process exits still finds it.
Registry &registry() {
  static Registry &r = *new Registry;
  return r;
}

std::atomic<std::uint64_t> g_next_buffer_id{1};

std::uint64_t random_nonce() {
  std::uint64_t n = 0;
  if (getrandom(&n, sizeof n, 0) != static_cast<ssize_t>(sizeof n)) {
    n = static_cast<std::uint64_t>(std::time(nullptr)) * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(getpid());
  }
  return n | 1; // never zero
}

std::string memfd_name(std::uint64_t nonce, std::uint64_t buffer_id) {
  char name[64];
  std::snprintf(name, sizeof name, "hygfakecuda-%016llx-%llu", static_cast<unsigned long long>(nonce),
                static_cast<unsigned long long>(buffer_id));
  return name;
}

// Maps fd twice into `a` (base: PROT_NONE, alias: read-write); false if either mapping fails.
bool map_twice(int fd, Allocation &a) {
  void *device = mmap(nullptr, a.size, PROT_NONE, MAP_SHARED, fd, 0);
  if (device == MAP_FAILED)
    return false;
  a.base = reinterpret_cast<std::uintptr_t>(device);
  void *alias = mmap(nullptr, a.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (alias == MAP_FAILED)
    return false; // the destructor unmaps base
  a.alias = static_cast<unsigned char *>(alias);
  return true;
}

// The allocation holding ptr, or null; the registry's mutex is held.
std::shared_ptr<Allocation> containing(const Registry &r, CUdeviceptr ptr) {
  auto it = r.by_base.upper_bound(ptr);
  if (it == r.by_base.begin())
    return nullptr;
  --it;
  return ptr - it->first < it->second->size ? it->second : nullptr;
}

// The allocation whose base is ptr, or null; the registry's mutex is held.
std::shared_ptr<Allocation> at_base(const Registry &r, CUdeviceptr ptr) {
  const auto it = r.by_base.find(ptr);
  return it == r.by_base.end() ? nullptr : it->second;
}

enum class Side { any, device, host };

// Where the fake reads or writes [ptr, ptr + bytes): the alias of the allocation holding it, or ptr
// itself for host memory. INVALID_VALUE if the range leaves its allocation, overlaps one from
// outside, is null host memory, or is of the wrong side.
CUresult resolve(CUdeviceptr ptr, std::size_t bytes, Side side, std::shared_ptr<Allocation> &hold,
                 unsigned char *&address) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  if (auto a = containing(r, ptr)) {
    if (side == Side::host || bytes > a->size - (ptr - a->base))
      return CUDA_ERROR_INVALID_VALUE;
    address = a->alias + (ptr - a->base);
    hold = std::move(a);
    return CUDA_SUCCESS;
  }
  if (side == Side::device || ptr == 0 || bytes > ULLONG_MAX - ptr)
    return CUDA_ERROR_INVALID_VALUE;
  const auto next = r.by_base.lower_bound(ptr);
  if (next != r.by_base.end() && next->first < ptr + bytes)
    return CUDA_ERROR_INVALID_VALUE;
  address = reinterpret_cast<unsigned char *>(static_cast<std::uintptr_t>(ptr));
  hold.reset();
  return CUDA_SUCCESS;
}

CUdeviceptr host_address(const void *p) { return reinterpret_cast<std::uintptr_t>(p); }

// A "synchronous" copy: after the legacy default stream's work, as in a real driver. The driver
// API's "API synchronization behavior" makes only a copy into host memory complete at return: one
// from host memory into device memory returns once the source is staged, one between device
// memories returns at once. Under `defer` such a copy joins the legacy default stream (a host
// source staged now), so a caller that lets another process read the result without a sync of
// its own sees the old data, as it may on a GPU.
CUresult copy_now(CUdeviceptr dst, Side dst_side, CUdeviceptr src, Side src_side, std::size_t bytes) {
  Copy c;
  unsigned char *d = nullptr, *s = nullptr;
  if (const CUresult r = resolve(dst, bytes, dst_side, c.dst_hold, d); r != CUDA_SUCCESS)
    return r;
  if (const CUresult r = resolve(src, bytes, src_side, c.src_hold, s); r != CUDA_SUCCESS)
    return r;
  c.dst = d;
  c.src = s;
  c.bytes = bytes;
  if (knobs().defer && c.dst_hold) {
    if (!c.src_hold) {
      c.staged = std::make_shared<std::vector<unsigned char>>(s, s + bytes);
      c.src = c.staged->data();
    }
    return enqueue(nullptr, std::move(c));
  }
  finish_legacy_work();
  c.run();
  return CUDA_SUCCESS;
}

CUresult copy_async(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream, Side side) {
  Copy c;
  unsigned char *d = nullptr, *s = nullptr;
  if (const CUresult r = resolve(dst, bytes, side, c.dst_hold, d); r != CUDA_SUCCESS)
    return r;
  if (const CUresult r = resolve(src, bytes, side, c.src_hold, s); r != CUDA_SUCCESS)
    return r;
  c.dst = d;
  c.src = s;
  c.bytes = bytes;
  return enqueue(stream, std::move(c));
}

// Writes one attribute of the allocation `a` (null: not device memory, every attribute reads
// zero) into data, in the type the driver API gives that attribute.
template <class T> void put(void *data, T value) { std::memcpy(data, &value, sizeof value); }

CUresult write_attribute(void *data, CUpointer_attribute attribute, const Allocation *a) {
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_CONTEXT:
    put<CUcontext>(data, a ? primary_context(a->device) : nullptr);
    break;
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    put<unsigned>(data, a ? static_cast<unsigned>(CU_MEMORYTYPE_DEVICE) : 0u);
    break;
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    put<unsigned>(data, a ? a->sync_memops : 0u);
    break;
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    put<unsigned long long>(data, a ? a->buffer_id : 0ull);
    break;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    put<unsigned>(data, 0u);
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    put<int>(data, a ? a->device : 0);
    break;
  // An opened allocation cannot be exported again (cuIpcGetMemHandle refuses it).
  case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    put<int>(data, a && !a->opened ? 1 : 0);
    break;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    put<CUdeviceptr>(data, a ? a->base : 0ull);
    break;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    put<std::size_t>(data, a ? a->size : 0u);
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The IPC handle's contents, at the start of its 64 bytes; the rest is zero.
struct Wire {
  std::uint64_t magic;
  std::int32_t pid;
  std::int32_t fd;
  std::uint64_t size;
  std::uint64_t buffer_id;
  std::uint64_t nonce;
  std::int32_t device;
  std::int32_t reserved;
};
static_assert(sizeof(Wire) <= sizeof(CUipcMemHandle));
constexpr std::uint64_t kWireMagic = 0x4855474146414b45ULL; // "HUGAFAKE"

// Opens the memory behind an IPC handle: a fresh Allocation, not yet registered, or an error.
CUresult open_exported(const Wire &w, CUdevice device, std::shared_ptr<Allocation> &out) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(w.pid), static_cast<int>(w.fd));
  const int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return CUDA_ERROR_INVALID_HANDLE; // the exporter is gone, or its fd is closed
  auto a = std::make_shared<Allocation>();
  a->fd = fd; // closed by the destructor on every early return
  // The name is checked on the fd now open, so it is the memory that will be mapped.
  char self[64], target[256];
  std::snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(self, target, sizeof target - 1);
  if (n < 0)
    return CUDA_ERROR_INVALID_HANDLE;
  target[n] = '\0';
  const std::string expected = "/memfd:" + memfd_name(w.nonce, w.buffer_id);
  const std::string found = target;
  if (found != expected && found != expected + " (deleted)")
    return CUDA_ERROR_INVALID_HANDLE;
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != w.size)
    return CUDA_ERROR_INVALID_HANDLE;
  a->size = w.size;
  if (!map_twice(fd, *a))
    return CUDA_ERROR_OUT_OF_MEMORY;
  // The fd stays open with a shared lock while this process has the memory open, so that the
  // exporter's cuMemFree sees it (strictfree); the destructor closes it, which drops the lock.
  (void)flock(fd, LOCK_SH);
  a->buffer_id = w.buffer_id;
  a->nonce = w.nonce;
  a->device = device;
  a->opened = true;
  a->exporter = w.pid;
  a->open_refs = 1;
  out = std::move(a);
  return CUDA_SUCCESS;
}

} // namespace

namespace api {

CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (!dptr || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (knobs().oom)
    return CUDA_ERROR_OUT_OF_MEMORY;
  auto a = std::make_shared<Allocation>();
  a->size = bytesize;
  a->buffer_id = g_next_buffer_id.fetch_add(1);
  a->nonce = random_nonce();
  a->device = ctx->device;
  a->fd = memfd_create(memfd_name(a->nonce, a->buffer_id).c_str(), MFD_CLOEXEC);
  if (a->fd < 0 || ftruncate(a->fd, static_cast<off_t>(bytesize)) != 0 || !map_twice(a->fd, *a)) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *dptr = a->base;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  r.by_base.emplace(a->base, std::move(a));
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr dptr) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  std::shared_ptr<Allocation> gone; // unmapped once the lock is dropped, or by the last queued copy
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  gone = at_base(r, dptr);
  if (!gone || gone->opened)
    return CUDA_ERROR_INVALID_VALUE;
  if (knobs().strictfree && flock(gone->fd, LOCK_EX | LOCK_NB) != 0) { // another process has it open
    std::fprintf(stderr, "fake_cuda: cuMemFree(%#llx): process %d frees memory that another process has open\n",
                 static_cast<unsigned long long>(dptr), static_cast<int>(getpid()));
    gone.reset();
    return CUDA_ERROR_INVALID_VALUE;
  }
  r.by_base.erase(dptr);
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  const auto a = containing(r, dptr);
  if (!a)
    return CUDA_ERROR_NOT_FOUND;
  if (pbase)
    *pbase = a->base;
  if (psize)
    *psize = a->size;
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (N == 0)
    return CUDA_SUCCESS;
  std::shared_ptr<Allocation> hold;
  unsigned char *d = nullptr;
  if (const CUresult r = resolve(dstDevice, N, Side::device, hold, d); r != CUDA_SUCCESS)
    return r;
  finish_legacy_work();
  std::memset(d, uc, N);
  return CUDA_SUCCESS;
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  return copy_now(dst, Side::any, src, Side::any, ByteCount);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  return copy_async(dst, src, ByteCount, hStream, Side::any);
}

CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  return copy_now(dstDevice, Side::device, host_address(srcHost), Side::host, ByteCount);
}

CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  return copy_now(host_address(dstHost), Side::host, srcDevice, Side::device, ByteCount);
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  return copy_async(dstDevice, srcDevice, ByteCount, hStream, Side::device);
}

// Page-locked host memory: the fake copies host memory the same way pinned or not, so it only
// keeps the ranges, to refuse what a real driver refuses (an overlap, device memory, an unknown
// start at unregister).
CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (knobs().nopin)
    return CUDA_ERROR_NOT_SUPPORTED;
  std::shared_ptr<Allocation> device;
  unsigned char *address = nullptr;
  if (bytesize == 0 || Flags > 0xf || resolve(host_address(p), bytesize, Side::host, device, address) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  const std::uintptr_t start = host_address(p);
  auto next = r.pinned.lower_bound(start);
  if (next != r.pinned.end() && next->first < start + bytesize)
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  if (next != r.pinned.begin() && std::prev(next)->first + std::prev(next)->second > start)
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  r.pinned.emplace(start, bytesize);
  return CUDA_SUCCESS;
}

CUresult cuMemHostUnregister(void *p) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  return r.pinned.erase(host_address(p)) == 1 ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!data)
    return CUDA_ERROR_INVALID_VALUE;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  const auto a = containing(r, ptr);
  if (!a)
    return CUDA_ERROR_INVALID_VALUE;
  return write_attribute(data, attribute, a.get());
}

// Unlike cuPointerGetAttribute, memory the driver does not know is no error: every attribute
// reads zero (null for the pointer-sized ones), as the real driver reports host memory.
CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                CUdeviceptr ptr) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (numAttributes == 0)
    return CUDA_SUCCESS;
  if (!attributes || !data)
    return CUDA_ERROR_INVALID_VALUE;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  const auto a = containing(r, ptr);
  for (unsigned i = 0; i < numAttributes; ++i) {
    if (!data[i])
      return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult res = write_attribute(data[i], attributes[i], a.get()); res != CUDA_SUCCESS)
      return res;
  }
  return CUDA_SUCCESS;
}

CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
    return CUDA_ERROR_INVALID_VALUE;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  const auto a = containing(r, ptr);
  if (!a)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned v = 0;
  std::memcpy(&v, value, sizeof v);
  a->sync_memops = v != 0 ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (!pHandle)
    return CUDA_ERROR_INVALID_VALUE;
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  const auto a = at_base(r, dptr);
  if (!a || a->opened)
    return CUDA_ERROR_INVALID_VALUE;
  const Wire w{kWireMagic, static_cast<std::int32_t>(getpid()), a->fd, a->size, a->buffer_id, a->nonce, a->device, 0};
  std::memset(pHandle->reserved, 0, sizeof pHandle->reserved);
  std::memcpy(pHandle->reserved, &w, sizeof w);
  return CUDA_SUCCESS;
}

// Opening the same exporter's buffer twice gives the same address and counts one more reference.
CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (!pdptr || Flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
    return CUDA_ERROR_INVALID_VALUE;
  Wire w{};
  std::memcpy(&w, handle.reserved, sizeof w);
  if (w.magic != kWireMagic || w.size == 0 || w.pid <= 0 || w.fd < 0)
    return CUDA_ERROR_INVALID_HANDLE;
  if (w.pid == getpid())
    return CUDA_ERROR_INVALID_CONTEXT; // a real driver refuses its own handles too
  const std::pair key{static_cast<pid_t>(w.pid), w.buffer_id};
  Registry &r = registry();
  {
    std::lock_guard lock(r.mutex);
    if (const auto it = r.opened.find(key); it != r.opened.end()) {
      ++r.by_base.at(it->second)->open_refs;
      *pdptr = it->second;
      return CUDA_SUCCESS;
    }
  }
  const CUdevice device = w.device >= 0 && w.device < knobs().devices ? w.device : ctx->device;
  std::shared_ptr<Allocation> a;
  if (const CUresult res = open_exported(w, device, a); res != CUDA_SUCCESS)
    return res;
  std::lock_guard lock(r.mutex);
  if (const auto it = r.opened.find(key); it != r.opened.end()) { // another thread was first
    ++r.by_base.at(it->second)->open_refs;
    *pdptr = it->second;
    return CUDA_SUCCESS; // `a` is unmapped on return
  }
  *pdptr = a->base;
  r.opened.emplace(key, a->base);
  r.by_base.emplace(a->base, std::move(a));
  return CUDA_SUCCESS;
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  std::shared_ptr<Allocation> gone; // unmapped once the lock is dropped, or by the last queued copy
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  const auto a = at_base(r, dptr);
  if (!a || !a->opened)
    return CUDA_ERROR_INVALID_VALUE;
  if (--a->open_refs > 0)
    return CUDA_SUCCESS;
  r.opened.erase({a->exporter, a->buffer_id});
  gone = r.by_base.at(dptr);
  r.by_base.erase(dptr);
  return CUDA_SUCCESS;
}

} // namespace api

FAKE_CUDA_CHECK_TYPES

} // namespace fake_cuda
