// Single-node benchmarks, each beside the raw floor underneath it, measured in the same run:
//   latency   one-way 8 B gaspi_write_notify -> gaspi_notify_waitsome   vs  raw shm flag ping-pong
//   bandwidth gaspi_write of 4 KiB, 1 MiB, 64 MiB to a node peer        vs  memcpy of the same size
// Run as 2 ranks: hygaspi-run -n 2 -- bench_shm. Rank 0 drives Google Benchmark; rank 1 echoes.
// Latency is half a round trip, timed by turns with its floor: this host's cache-line round trip
// swings between about 50, 110 and 500 ns, sometimes within a run, and a floor timed once beside
// a figure timed in another state printed 4.2x where the two timed by turns gave 1.1x. Each of
// kTurns turns times kPingPongs raw round trips and then as many GASPI ones; the row shows the
// medians and the median of the turns' ratios. The bandwidths are Google Benchmark's medians of 5.
#include "bench_util.hpp"
#include "bench_median.hpp"

#include <GASPI.h>
#include <GASPI_Ext.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using bench::median;

using bench::ok;

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kBig = 64ul << 20;
constexpr gaspi_notification_id_t kPing = 0, kPong = 1, kStop = 2;
constexpr int kTurns = 5;
constexpr long kPingPongs = 50000;

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
  // What it echoed last (rank 0 counts on from it too): reading `ping` instead could already see
  // this turn's first ping, which would then never be echoed.
  std::uint64_t seen = g_raw->pong.load(std::memory_order_acquire);
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

using Clock = std::chrono::steady_clock;
double one_way_ns(Clock::time_point t0, long round_trips) {
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / static_cast<double>(2 * round_trips);
}

// Rank 0: kPingPongs flag round trips with rank 1's echo_raw; one-way ns.
double raw_pingpongs() {
  std::uint64_t k = g_raw->pong.load();
  const auto t0 = Clock::now();
  for (long i = 0; i < kPingPongs; ++i) {
    ++k;
    g_raw->ping.store(k, std::memory_order_release);
    while (g_raw->pong.load(std::memory_order_acquire) != k)
      __builtin_ia32_pause();
  }
  return one_way_ns(t0, kPingPongs);
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

// Rank 0: kPingPongs write_notify round trips with rank 1's echo_gaspi; one-way ns.
double gaspi_pingpongs() {
  const auto t0 = Clock::now();
  for (long i = 0; i < kPingPongs; ++i) {
    gaspi_return_t rc;
    while ((rc = gaspi_write_notify(kSeg, 0, 1, kSeg, 64, 8, kPing, 1, 0, GASPI_BLOCK)) == GASPI_QUEUE_FULL)
      ok(gaspi_wait(0, GASPI_BLOCK), "wait");
    ok(rc, "write_notify");
    gaspi_notification_id_t id = 0;
    gaspi_notification_t val = 0;
    ok(gaspi_notify_waitsome(kSeg, kPong, 1, &id, GASPI_BLOCK), "waitsome");
    ok(gaspi_notify_reset(kSeg, kPong, &val), "reset");
  }
  return one_way_ns(t0, kPingPongs);
}

// The latency turns, both ranks: rank 1 echoes the raw flag until told to stop, then GASPI
// notifications until kStop; rank 0 times both. Returns {ours, floor, ratio} medians (rank 0).
struct Latency {
  double ours = 0, floor = 0, ratio = 0;
};
Latency latency_by_turns() {
  std::vector<double> ours, floor, ratio;
  for (int turn = 0; turn <= kTurns; ++turn) { // turn 0 warms up
    g_raw->stop.store(0, std::memory_order_release);
    ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
    if (g_rank == 1) {
      echo_raw();
      echo_gaspi();
    } else {
      const double raw = raw_pingpongs();
      g_raw->stop.store(1, std::memory_order_release);
      const double gaspi = gaspi_pingpongs();
      ok(gaspi_notify(kSeg, 1, kStop, 1, 0, GASPI_BLOCK), "notify stop");
      if (turn > 0) {
        ours.push_back(gaspi);
        floor.push_back(raw);
        ratio.push_back(gaspi / raw);
      }
    }
    ok(gaspi_wait(0, GASPI_BLOCK), "wait");
    ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  }
  return g_rank == 0 ? Latency{median(ours), median(floor), median(ratio)} : Latency{};
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

  const Latency latency = latency_by_turns();
  if (g_rank == 0) {
    benchmark::Initialize(&argc, argv);
    bench::Collector collector;
    for (long size : {4096l, 1l << 20, 64l << 20}) {
      bench::median_of_5(benchmark::RegisterBenchmark("memcpy", BM_memcpy)->Arg(size));
      bench::median_of_5(benchmark::RegisterBenchmark("gaspi_write", BM_gaspi_write)->Arg(size));
    }
    benchmark::RunSpecifiedBenchmarks(&collector);

    bench::header();
    bench::row("one-way 8 B write_notify -> waitsome", latency.ours, latency.floor, "ns", 0,
               "<= 1.5 (raw shm flag ping-pong)", latency.ratio);
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
