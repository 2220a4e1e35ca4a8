#include "kinds/cuda_driver.hpp"

#include <dlfcn.h>

#include <mutex>

namespace hygaspi::cuda {

namespace {

struct Loaded {
  Driver driver;
  bool ok = false;
  std::string why;
};

// Looks every function of HYGASPI_CUDA_FUNCTIONS up at its pinned version. cuGetProcAddress_v2
// (CUDA 12.0 on) is preferred: it tells a missing symbol from a driver too old for the version.
bool resolve(void *handle, const std::string &library, Driver &d, std::string &why) {
  auto *v2 = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(handle, "cuGetProcAddress_v2"));
  auto *v1 = reinterpret_cast<PFN_cuGetProcAddress_v11030>(dlsym(handle, "cuGetProcAddress"));
  if (v2 == nullptr && v1 == nullptr) {
    why = library + " has no cuGetProcAddress (a CUDA driver older than 11.3?)";
    return false;
  }
  auto lookup = [&](const char *name, int version, void **out) {
    *out = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    const CUresult r = v2 != nullptr ? v2(name, out, version, CU_GET_PROC_ADDRESS_DEFAULT, &status)
                                     : v1(name, out, version, CU_GET_PROC_ADDRESS_DEFAULT);
    if (r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && *out != nullptr)
      return true;
    why = library + " does not provide " + name + " at version " + std::to_string(version) +
          (status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? " (the driver is too old)" : "") +
          " (cuGetProcAddress returned " + std::to_string(static_cast<int>(r)) + ")";
    return false;
  };
#define HYGASPI_CUDA_LOOKUP(name, version, type)                                                                       \
  if (!lookup(#name, version, reinterpret_cast<void **>(&d.name)))                                                     \
    return false;
  HYGASPI_CUDA_FUNCTIONS(HYGASPI_CUDA_LOOKUP)
#undef HYGASPI_CUDA_LOOKUP
  return true;
}

void load_once(const std::string &library, Loaded &out) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace, where a client's own
  // libcuda (linked at build time) would otherwise meet ours. The handle is never closed: the
  // driver's threads and atexit handlers outlive any point where unloading would be safe.
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *e = dlerror();
    out.why = "cannot load " + library + ": " + (e != nullptr ? e : "unknown error");
    return;
  }
  if (!resolve(handle, library, out.driver, out.why))
    return;
  Driver &d = out.driver;
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    out.why = "cuInit: " + describe(&d, r);
    return;
  }
  r = d.cuDriverGetVersion(&d.version);
  if (r != CUDA_SUCCESS) {
    out.why = "cuDriverGetVersion: " + describe(&d, r);
    return;
  }
  out.ok = true;
}

} // namespace

const Driver *load(const std::string &library, std::string &why) noexcept {
  static std::once_flag once;
  static Loaded *loaded = nullptr; // never freed: the table outlives every user
  try {
    std::call_once(once, [&] {
      auto *l = new Loaded;
      load_once(library, *l);
      loaded = l;
    });
  } catch (...) {
    why = "out of memory while loading the CUDA driver";
    return nullptr;
  }
  if (loaded == nullptr || !loaded->ok) {
    why = loaded != nullptr ? loaded->why : "the CUDA driver could not be loaded";
    return nullptr;
  }
  return &loaded->driver;
}

std::string describe(const Driver *driver, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (driver != nullptr && driver->cuGetErrorName != nullptr && driver->cuGetErrorName(r, &name) == CUDA_SUCCESS &&
      name != nullptr) {
    std::string s = name;
    if (driver->cuGetErrorString(r, &text) == CUDA_SUCCESS && text != nullptr)
      s += std::string(" (") + text + ")";
    return s;
  }
  // Without the driver's names (no driver, or the toolkit's stub, which answers cuGetErrorName with
  // an error too): the codes a start-up meets, by their cuda.h names.
#define HYGASPI_CUDA_CODE(c)                                                                                           \
  { c, #c }
  static constexpr struct {
    CUresult code;
    const char *name;
  } kKnown[] = {HYGASPI_CUDA_CODE(CUDA_ERROR_INVALID_VALUE),       HYGASPI_CUDA_CODE(CUDA_ERROR_OUT_OF_MEMORY),
                HYGASPI_CUDA_CODE(CUDA_ERROR_NOT_INITIALIZED),     HYGASPI_CUDA_CODE(CUDA_ERROR_STUB_LIBRARY),
                HYGASPI_CUDA_CODE(CUDA_ERROR_INSUFFICIENT_DRIVER), HYGASPI_CUDA_CODE(CUDA_ERROR_NO_DEVICE),
                HYGASPI_CUDA_CODE(CUDA_ERROR_INVALID_DEVICE)};
#undef HYGASPI_CUDA_CODE
  const std::string code = "CUDA error " + std::to_string(static_cast<int>(r));
  for (const auto &k : kKnown)
    if (k.code == r)
      return std::string(k.name) + " (" + code + ")";
  return code;
}

} // namespace hygaspi::cuda
