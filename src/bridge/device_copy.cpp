// The device routes' shared copies and pinned buffers (bridge/device_copy.hpp).
#include "bridge/device_copy.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "bridge/runtime.hpp"
#include "bridge/segment_rma.hpp"
#include "core/log.hpp"
#include "kinds/devices.hpp"

namespace hygaspi::engine {

kinds::CudaDevice *device_of(int ordinal) {
  std::string why;
  kinds::CudaDevice *dev = kinds::device(rt().knobs.cuda_library, ordinal, why);
  if (dev == nullptr)
    log::error("CUDA device %d: %s", ordinal, why.c_str());
  return dev;
}

gaspi_return_t device_copy(void *dst, const void *src, std::uint64_t n, int ordinal) {
  kinds::CudaDevice *dev = device_of(ordinal);
  return dev != nullptr ? copy_now(*dev, dst, src, n) : GASPI_ERROR;
}

gaspi_return_t local_copy(void *dst, const void *src, std::uint64_t n, int ordinal) {
  if (ordinal >= 0)
    return device_copy(dst, src, n, ordinal);
  std::memcpy(dst, src, n);
  return GASPI_SUCCESS;
}

namespace {
constexpr std::uint64_t kPage = 4096;
}

PinnedBuffer::PinnedBuffer(std::uint64_t bytes)
    : bytes_(bytes), data_(static_cast<char *>(std::aligned_alloc(kPage, bytes))) {}

char *PinnedBuffer::use(int ordinal) {
  if (!pinned_ && ordinal >= 0 && data_ != nullptr) {
    pinned_ = true; // tried once
    std::string why;
    kinds::CudaDevice *dev = kinds::device(rt().knobs.cuda_library, ordinal, why);
    if (dev == nullptr || !dev->pin(data_, bytes_, why))
      log::debug("a staging buffer of %lu bytes stays pageable: %s", static_cast<unsigned long>(bytes_), why.c_str());
  }
  return data_;
}

} // namespace hygaspi::engine
