#include "kinds/devices.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace hygaspi::kinds {

namespace {
struct Devices {
  std::mutex lock;
  std::vector<std::unique_ptr<CudaDevice>> open;
};
Devices &devices() {
  static auto *d = new Devices; // threads may still copy through a device as the process exits
  return *d;
}
} // namespace

CudaDevice *device(const std::string &library, int ordinal, std::string &why) {
  Devices &d = devices();
  std::lock_guard lock(d.lock);
  for (const auto &dev : d.open)
    if (dev->ordinal() == ordinal)
      return dev.get();
  auto dev = CudaDevice::open(library, ordinal, why);
  if (dev == nullptr)
    return nullptr;
  d.open.push_back(std::move(dev));
  return d.open.back().get();
}

} // namespace hygaspi::kinds
