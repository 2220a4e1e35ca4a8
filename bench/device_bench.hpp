// What the device-memory benchmarks (bench_mk through GASNet-EX, bench_gaspi_device through GASPI)
// share: the timing loop, the ratio table, and the raw side's CUDA set-up through the library's own
// loader (the same driver the library uses).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kinds/cuda_driver.hpp"

namespace device_bench {

using namespace hygaspi::cuda;

// Microseconds per call of op() moving n bytes: a tenth of the count to warm up, then at most 1 GiB
// (20 to 2000 calls).
template <class Op> double us_per_op(std::size_t n, Op &&op) {
  const long iters =
      static_cast<long>(std::clamp<std::size_t>((std::size_t{1} << 30) / std::max<std::size_t>(n, 1), 20, 2000));
  for (long i = 0; i < iters / 10 + 1; ++i)
    op();
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < iters; ++i)
    op();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters;
}

inline void header() {
  std::printf("%-10s | %9s | %10s | %10s | %5s | %9s | %9s\n", "op", "bytes", "ours µs", "raw µs", "ratio", "ours GB/s",
              "raw GB/s");
}
inline void row(const char *what, std::size_t n, double ours, double raw) {
  std::printf("%-10s | %9zu | %10.2f | %10.2f | %5.2f | %9.2f | %9.2f\n", what, n, ours, raw, ours / raw,
              n / ours / 1e3, n / raw / 1e3);
  std::fflush(stdout);
}

// The raw side: the driver HYGASPI_CUDA_LIBRARY names (libcuda.so.1 by default), device 0's primary
// context current on this thread, and a non-blocking stream. `check(ok, what)` ends the program
// when ok is false.
struct RawCuda {
  const char *library = nullptr;
  const Driver *d = nullptr;
  CUstream stream = nullptr;
};
template <class Check> RawCuda open_raw_cuda(Check &&check) {
  RawCuda raw;
  const char *lib = std::getenv("HYGASPI_CUDA_LIBRARY");
  raw.library = lib != nullptr ? lib : "libcuda.so.1";
  std::string why;
  raw.d = load(raw.library, why);
  check(raw.d != nullptr, why.c_str());
  CUdevice dev;
  CUcontext ctx;
  check(raw.d->cuDeviceGet(&dev, 0) == CUDA_SUCCESS, "cuDeviceGet");
  check(raw.d->cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS, "cuDevicePrimaryCtxRetain");
  check(raw.d->cuCtxPushCurrent(ctx) == CUDA_SUCCESS, "cuCtxPushCurrent");
  check(raw.d->cuStreamCreate(&raw.stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS, "cuStreamCreate");
  return raw;
}

} // namespace device_bench
