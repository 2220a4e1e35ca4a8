// What the device routes share (bridge/device_rma.cpp on this side, bridge/remote_device.cpp with
// another node's device memory): this process's copies with device memory, and pinned host memory
// to pass device data through.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "kinds/cuda_device.hpp"

namespace hygaspi::engine {

// This process's device `ordinal`; nullptr (logged) when there is none.
kinds::CudaDevice *device_of(int ordinal);
// A copy between two addresses of this process, at least one of them memory of the device
// `ordinal`; complete when it returns (copy_now, bridge/segment_rma.hpp).
gaspi_return_t device_copy(void *dst, const void *src, std::uint64_t n, int ordinal);
// The same when `ordinal` >= 0; a memcpy between host memory otherwise.
gaspi_return_t local_copy(void *dst, const void *src, std::uint64_t n, int ordinal);

// Host memory for the process's life, page-locked through the first device that copies through
// it: a copy between pinned memory and the device runs as DMA, without the driver's own staging
// (CUDA stages pageable memory through a pinned buffer of its own). Kept, like the devices
// (kinds/devices.hpp), so that it is pinned once however often the library starts. Its user
// serialises access.
class PinnedBuffer {
public:
  explicit PinnedBuffer(std::uint64_t bytes);
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  // The buffer (nullptr if it could not be allocated), pinned now if `ordinal` >= 0 names a device
  // and it is not yet. A driver that refuses leaves it pageable, which costs speed only.
  char *use(int ordinal);

private:
  std::uint64_t bytes_;
  char *data_;
  bool pinned_ = false;
};

} // namespace hygaspi::engine
