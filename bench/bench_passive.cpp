// Passive communication round trip (spec §9), beside the raw floor underneath it, in the same run:
//   round trip  8 B gaspi_passive_send -> gaspi_passive_receive, echoed back by rank 1
//   floor       a minimal SPSC slot exchange in a raw shm object: 8 B payload + sequence word,
//               one slot each way, each on its own 128-byte line, both sides spinning
// Run as 2 ranks: hygaspi-run -n 2 -- bench_passive. Rank 0 drives Google Benchmark; rank 1
// echoes. Figures are whole round trips (median of 5). Absolute times on shared VMs are noisy;
// the ratio is the figure.
#include "bench_util.hpp"

#include <GASPI.h>
#include <GASPI_Ext.h>
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using bench::ok;

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_offset_t kOut = 0, kIn = 4096;
constexpr std::uint64_t kStop = ~0ull;

gaspi_rank_t g_rank = 0;
char *g_seg = nullptr;

// ---- raw floor: one slot each way, a sequence and a payload, with a single producer and
// consumer and no doorbell.
struct alignas(128) RawSlot {
  std::atomic<std::uint64_t> sequence;
  std::uint64_t payload;
};
struct RawExchange {
  RawSlot ping;
  RawSlot pong;
};
static_assert(sizeof(RawExchange) == 256);
RawExchange *g_raw = nullptr;

void echo_raw() {
  for (std::uint64_t k = 1;; ++k) {
    while (g_raw->ping.sequence.load(std::memory_order_acquire) != k)
      __builtin_ia32_pause();
    const std::uint64_t v = g_raw->ping.payload;
    if (v == kStop)
      return;
    g_raw->pong.payload = v;
    g_raw->pong.sequence.store(k, std::memory_order_release);
  }
}

std::uint64_t g_raw_k = 0;

void raw_exchange(std::uint64_t value) {
  ++g_raw_k;
  g_raw->ping.payload = value;
  g_raw->ping.sequence.store(g_raw_k, std::memory_order_release);
}

void BM_raw_ring_roundtrip(benchmark::State &state) {
  for (auto _ : state) {
    raw_exchange(g_raw_k);
    while (g_raw->pong.sequence.load(std::memory_order_acquire) != g_raw_k)
      __builtin_ia32_pause();
    benchmark::DoNotOptimize(g_raw->pong.payload);
  }
  state.counters["roundtrip_ns"] = bench::seconds_per(static_cast<double>(state.iterations()));
}

// ---- GASPI: rank 1 receives each 8-byte message and sends it back.
void echo_gaspi() {
  for (;;) {
    gaspi_rank_t from = 0;
    ok(gaspi_passive_receive(kSeg, kIn, &from, 8, GASPI_BLOCK), "passive_receive");
    std::uint64_t v;
    std::memcpy(&v, g_seg + kIn, 8);
    if (v == kStop)
      return;
    std::memcpy(g_seg + kOut, &v, 8);
    ok(gaspi_passive_send(kSeg, kOut, from, 8, GASPI_BLOCK), "passive_send");
  }
}

void BM_gaspi_passive_roundtrip(benchmark::State &state) {
  std::uint64_t k = 0;
  for (auto _ : state) {
    ++k;
    std::memcpy(g_seg + kOut, &k, 8);
    ok(gaspi_passive_send(kSeg, kOut, 1, 8, GASPI_BLOCK), "passive_send");
    gaspi_rank_t from = 0;
    ok(gaspi_passive_receive(kSeg, kIn, &from, 8, GASPI_BLOCK), "passive_receive");
    std::uint64_t back;
    std::memcpy(&back, g_seg + kIn, 8);
    if (back != k || from != 1) {
      std::fprintf(stderr, "bench: echo returned %llu from %u, expected %llu from 1\n",
                   static_cast<unsigned long long>(back), from, static_cast<unsigned long long>(k));
      std::exit(1);
    }
  }
  state.counters["roundtrip_ns"] = bench::seconds_per(static_cast<double>(state.iterations()));
}

} // namespace

int main(int argc, char **argv) {
  g_rank = bench::two_rank_init(argv[0], "bench_passive");
  ok(gaspi_segment_create(kSeg, 8192, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment_create");
  ok(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t *>(&g_seg)), "segment_ptr");
  g_raw = bench::map_raw<RawExchange>("benchpassive"); // created (zeroed) by rank 0 before rank 1 opens it

  if (g_rank == 1) {
    echo_raw();
    echo_gaspi();
  } else {
    benchmark::Initialize(&argc, argv);
    bench::Collector collector;
    bench::median_of_5(benchmark::RegisterBenchmark("raw_ring_roundtrip", BM_raw_ring_roundtrip)->MinTime(0.5));
    benchmark::RunSpecifiedBenchmarks(&collector);
    raw_exchange(kStop);
    benchmark::ClearRegisteredBenchmarks();
    bench::median_of_5(
        benchmark::RegisterBenchmark("gaspi_passive_roundtrip", BM_gaspi_passive_roundtrip)->MinTime(0.5));
    benchmark::RunSpecifiedBenchmarks(&collector);
    std::memcpy(g_seg + kOut, &kStop, 8);
    ok(gaspi_passive_send(kSeg, kOut, 1, 8, GASPI_BLOCK), "passive_send stop");

    bench::header(false);
    bench::row("round trip 8 B passive send -> receive", 1e9 * collector.get("gaspi_passive_roundtrip", "roundtrip_ns"),
               1e9 * collector.get("raw_ring_roundtrip", "roundtrip_ns"), "ns", 0);
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return 0;
}
