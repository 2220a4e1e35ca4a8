// One CUDA device as a memory kind uses it (GEX_MK_CLASS_CUDA_UVA): its primary context, an
// internal stream for the library's copies, device memory, the IPC export of a segment and the
// import of a node peer's, each driver call made with the primary context pushed and popped again,
// so that the client's current context is what it was.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kinds/cuda_driver.hpp"

namespace hygaspi::kinds {

// What the owner of a device segment publishes so that a process of its node can map it: the IPC
// handle of the allocation that holds the segment and the segment's offset in it. A handle names a
// whole allocation; the buffer id tells a reused address from the allocation that was opened
// before (the driver never hands the same id out twice in a process).
struct IpcKey {
  std::int32_t owner_pid = 0;
  std::uint32_t device_ordinal = 0;
  std::uint64_t buffer_id = 0;
  std::uint64_t owner_base = 0; // the allocation's address in its owner
  std::uint64_t offset = 0;     // segment start - allocation base
  std::uint64_t alloc_size = 0;
  cuda::CUipcMemHandle handle{};
};
static_assert(sizeof(IpcKey) == 104);

// How a CUDA call failed, for the API's error code: bad_arg (the device, the address or the
// driver cannot serve this) or resource (out of device memory).
enum class Fail : std::uint8_t { none, bad_arg, resource };

// A copy in flight on the device's stream; done() once its event has passed.
struct Copy {
  cuda::CUevent event = nullptr;
};

class CudaDevice {
public:
  // The device `ordinal` through the driver `library`: its primary context retained, unified
  // addressing checked. nullptr with `why` (and Fail::bad_arg) when no driver, no such device or
  // no unified addressing.
  static std::unique_ptr<CudaDevice> open(const std::string &library, int ordinal, std::string &why);
  ~CudaDevice();
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  [[nodiscard]] int ordinal() const noexcept { return ordinal_; }

  // Device memory of `n` bytes (n > 0), with synchronous memory operations set (a copy through it
  // is ordered with the kernels of other streams, as GASNet-EX does).
  Fail allocate(std::size_t n, void *&out, std::string &why);
  void release(void *p) noexcept;
  // Page-locks [p, p + n) of host memory for every context (portable), so that copies between it
  // and device memory run as DMA and truly asynchronously; for the rest of the process's life (the
  // caller keeps the memory). False with `why` when the driver refuses.
  bool pin(void *p, std::size_t n, std::string &why);
  // [p, p + n) is device memory of this device (not managed memory), inside one allocation.
  Fail check_client(const void *p, std::size_t n, std::string &why);
  // Whether the driver knows p as device memory of any device (not managed memory, which the CPU
  // reaches too). False for memory the driver does not know.
  bool is_device_memory(const void *p);

  // The key a node peer imports to reach [p, ...) of this process's device memory.
  bool export_key(const void *p, IpcKey &key, std::string &why);
  // This process's address of the start of a peer's segment: its allocation opened once (later
  // imports count references), reopened when the buffer id shows a new allocation at that address.
  void *import(const IpcKey &key, std::string &why);
  // One reference fewer; the last closes the mapping, once this process's copies on the stream
  // are done.
  void unimport(const IpcKey &key) noexcept;

  // Copies n bytes between any two addresses of the unified space (host memory, this device's, an
  // imported peer allocation), asynchronously on the internal stream. test() is true once done;
  // `why` is then set when the copy failed.
  bool start_copy(void *dst, const void *src, std::size_t n, Copy &copy, std::string &why);
  bool test(Copy &copy, std::string &why);

private:
  CudaDevice(const cuda::Driver &d, int ordinal) : d_(d), ordinal_(ordinal) {}
  class Scope; // the primary context, current for the scope's lifetime

  const cuda::Driver &d_;
  int ordinal_ = 0;
  cuda::CUdevice device_ = 0;
  cuda::CUcontext context_ = nullptr;
  cuda::CUstream stream_ = nullptr;
  std::mutex lock_;                   // the stream, the event pool and the import cache
  std::vector<cuda::CUevent> events_; // free events
  struct Imported {
    std::uint64_t buffer_id = 0;
    void *base = nullptr;
    std::uint64_t refs = 0;
  };
  std::map<std::pair<std::int32_t, std::uint64_t>, Imported> imports_; // by (owner pid, owner_base)
};

} // namespace hygaspi::kinds
