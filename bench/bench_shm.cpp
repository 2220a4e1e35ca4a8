// Single-node benchmarks, each beside the raw floor underneath it, measured in the same run:
//   latency   one-way 8 B gaspi_write_notify -> gaspi_notify_waitsome   vs  raw shm flag ping-pong
//   bandwidth gaspi_write of 4 KiB, 1 MiB, 64 MiB to a node peer        vs  memcpy of the same size
// Run as 2 ranks: hygaspi-run -n 2 -- bench_shm. Rank 0 drives Google Benchmark; rank 1 echoes.
// Latency is half a round trip. Absolute times on shared VMs are noisy; the ratios are the figures.
#include "bench_util.hpp"

#include <GASPI.h>
#include <GASPI_Ext.h>
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using bench::ok;

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kBig = 64ul << 20;
constexpr gaspi_notification_id_t kPing = 0, kPong = 1, kStop = 2;

gaspi_rank_t g_rank = 0;
char *g_seg = nullptr;

// ---- raw floor: a flag ping-pong in a shm object of our own (named after the job, so the
// launcher removes it).
struct alignas(128) RawFlags {
  std::atomic<std::uint64_t> ping;
  alignas(128) std::atomic<std::uint64_t> pong;
  alignas(128) std::atomic<std::uint64_t> stop;
};
RawFlags *g_raw = nullptr;

void echo_raw() {
  std::uint64_t seen = 0;
  while (g_raw->stop.load(std::memory_order_acquire) == 0) {
    std::uint64_t v = g_raw->ping.load(std::memory_order_acquire);
    if (v != seen) {
      seen = v;
      g_raw->pong.store(v, std::memory_order_release);
    } else {
      __builtin_ia32_pause();
    }
  }
}

void BM_raw_flag_pingpong(benchmark::State &state) {
  std::uint64_t k = g_raw->pong.load();
  for (auto _ : state) {
    ++k;
    g_raw->ping.store(k, std::memory_order_release);
    while (g_raw->pong.load(std::memory_order_acquire) != k)
      __builtin_ia32_pause();
  }
  state.counters["one_way_ns"] = bench::seconds_per(static_cast<double>(state.iterations()) / 2);
}

// ---- GASPI: write_notify ping-pong; rank 1 answers each ping with a pong.
void echo_gaspi() {
  for (;;) {
    gaspi_notification_id_t id = 0;
    gaspi_notification_t val = 0;
    ok(gaspi_notify_waitsome(kSeg, kPing, 3, &id, GASPI_BLOCK), "waitsome");
    ok(gaspi_notify_reset(kSeg, id, &val), "reset");
    if (id == kStop)
      return;
    if (id != kPing)
      continue;
    gaspi_return_t rc;
    while ((rc = gaspi_write_notify(kSeg, 0, 0, kSeg, 64, 8, kPong, 1, 0, GASPI_BLOCK)) == GASPI_QUEUE_FULL)
      ok(gaspi_wait(0, GASPI_BLOCK), "wait");
    ok(rc, "write_notify");
  }
}

void BM_gaspi_write_notify_pingpong(benchmark::State &state) {
  for (auto _ : state) {
    gaspi_return_t rc;
    while ((rc = gaspi_write_notify(kSeg, 0, 1, kSeg, 64, 8, kPing, 1, 0, GASPI_BLOCK)) == GASPI_QUEUE_FULL)
      ok(gaspi_wait(0, GASPI_BLOCK), "wait");
    ok(rc, "write_notify");
    gaspi_notification_id_t id = 0;
    gaspi_notification_t val = 0;
    ok(gaspi_notify_waitsome(kSeg, kPong, 1, &id, GASPI_BLOCK), "waitsome");
    ok(gaspi_notify_reset(kSeg, kPong, &val), "reset");
  }
  state.counters["one_way_ns"] = bench::seconds_per(static_cast<double>(state.iterations()) / 2);
}

// ---- bandwidth: gaspi_write (plus gaspi_wait) into rank 1's segment vs memcpy between two
// buffers of this process.
void BM_gaspi_write(benchmark::State &state) {
  const auto size = static_cast<gaspi_size_t>(state.range(0));
  for (auto _ : state) {
    ok(gaspi_write(kSeg, kBig, 1, kSeg, 0, size, 1, GASPI_BLOCK), "write");
    ok(gaspi_wait(1, GASPI_BLOCK), "wait");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

void BM_memcpy(benchmark::State &state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  static std::vector<char> a(kBig, 1), b(kBig, 2);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), size);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

} // namespace

int main(int argc, char **argv) {
  g_rank = bench::two_rank_init(argv[0], "bench_shm");
  ok(gaspi_segment_create(kSeg, 2 * kBig, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment_create");
  ok(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t *>(&g_seg)), "segment_ptr");
  std::memset(g_seg, 3, 2 * kBig); // touch every page before timing
  g_raw = bench::map_raw<RawFlags>("bench");

  if (g_rank == 1) {
    echo_raw();
    echo_gaspi();
  } else {
    benchmark::Initialize(&argc, argv);
    bench::Collector collector;
    bench::median_of_5(benchmark::RegisterBenchmark("raw_flag_pingpong", BM_raw_flag_pingpong)->MinTime(0.5));
    benchmark::RunSpecifiedBenchmarks(&collector);
    g_raw->stop.store(1, std::memory_order_release);
    benchmark::ClearRegisteredBenchmarks();
    bench::median_of_5(
        benchmark::RegisterBenchmark("gaspi_write_notify_pingpong", BM_gaspi_write_notify_pingpong)->MinTime(0.5));
    for (long size : {4096l, 1l << 20, 64l << 20}) {
      bench::median_of_5(benchmark::RegisterBenchmark("memcpy", BM_memcpy)->Arg(size));
      bench::median_of_5(benchmark::RegisterBenchmark("gaspi_write", BM_gaspi_write)->Arg(size));
    }
    benchmark::RunSpecifiedBenchmarks(&collector);
    ok(gaspi_notify(kSeg, 1, kStop, 1, 0, GASPI_BLOCK), "notify stop");

    bench::header();
    bench::row("one-way 8 B write_notify -> waitsome", 1e9 * collector.get("gaspi_write_notify_pingpong", "one_way_ns"),
               1e9 * collector.get("raw_flag_pingpong", "one_way_ns"), "ns", 0, "<= 1.5 (raw shm flag ping-pong)");
    for (const char *size : {"4096", "1048576", "67108864"}) {
      double ours = collector.get(std::string("gaspi_write/") + size, "bytes_per_second") / 1e9;
      double floor = collector.get(std::string("memcpy/") + size, "bytes_per_second") / 1e9;
      bench::row((std::string("gaspi_write bandwidth ") + size + " B").c_str(), ours, floor, "GB/s", 2,
                 std::strcmp(size, "4096") ? ">= 0.9 (memcpy)" : "(memcpy)");
    }
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return 0;
}
