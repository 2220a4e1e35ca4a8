// Passive communication round trip (spec §9), beside the raw floor underneath it, in the same run:
//   round trip  8 B gaspi_passive_send -> gaspi_passive_receive, echoed back by rank 1
//   floor       a minimal SPSC slot exchange in a raw shm object: 8 B payload + sequence word,
//               one slot each way, each on its own 128-byte line, both sides spinning
// Run as 2 ranks: hygaspi-run -n 2 -- bench_passive. Rank 0 drives Google Benchmark; rank 1
// echoes. Figures are whole round trips (median of 5). Absolute times on shared VMs are noisy;
// the ratio is the figure.
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_offset_t kOut = 0, kIn = 4096;
constexpr std::uint64_t kStop = ~0ull;

void ok(gaspi_return_t rc, const char* what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "bench: %s failed: %s\n", what, gaspi_error_str(rc));
    std::exit(1);
  }
}

gaspi_rank_t g_rank = 0;
char* g_seg = nullptr;

// ---- raw floor: one slot each way, as the passive ring's slot (sequence + payload) but with a
// single producer and consumer and no doorbell.
struct alignas(128) RawSlot {
  std::atomic<std::uint64_t> sequence;
  std::uint64_t payload;
};
struct RawExchange {
  RawSlot ping;
  RawSlot pong;
};
static_assert(sizeof(RawExchange) == 256);
RawExchange* g_raw = nullptr;

RawExchange* map_raw() {
  const char* job = std::getenv("HYGASPI_JOB");
  std::string name = std::string("/hygaspi-") + (job ? job : "solo") + "-benchpassive";
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, sizeof(RawExchange)) != 0)
    std::exit(1);
  void* p = mmap(nullptr, sizeof(RawExchange), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    std::exit(1);
  return static_cast<RawExchange*>(p);
}

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

void BM_raw_ring_roundtrip(benchmark::State& state) {
  for (auto _ : state) {
    raw_exchange(g_raw_k);
    while (g_raw->pong.sequence.load(std::memory_order_acquire) != g_raw_k)
      __builtin_ia32_pause();
    benchmark::DoNotOptimize(g_raw->pong.payload);
  }
  state.counters["roundtrip_ns"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
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

void BM_gaspi_passive_roundtrip(benchmark::State& state) {
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
  state.counters["roundtrip_ns"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Collects each run's median for the ratio table.
class Collector : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> ns;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median")
        continue;
      auto it = r.counters.find("roundtrip_ns");
      if (it != r.counters.end())
        ns[r.run_name.function_name] = it->second.value * 1e9;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  ok(gaspi_proc_init(GASPI_BLOCK), "proc_init");
  gaspi_rank_t n = 0;
  ok(gaspi_proc_rank(&g_rank), "rank");
  ok(gaspi_proc_num(&n), "num");
  if (n != 2) {
    if (g_rank == 0)
      std::fprintf(stderr, "bench_passive needs exactly 2 ranks: hygaspi-run -n 2 -- %s\n", argv[0]);
    gaspi_proc_term(GASPI_BLOCK);
    return 2;
  }
  ok(gaspi_segment_create(kSeg, 8192, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment_create");
  ok(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t*>(&g_seg)), "segment_ptr");
  if (g_rank == 0)
    g_raw = map_raw();  // created (zeroed) by rank 0 before rank 1 opens it
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  if (g_rank == 1)
    g_raw = map_raw();
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");

  if (g_rank == 1) {
    echo_raw();
    echo_gaspi();
  } else {
    benchmark::Initialize(&argc, argv);
    Collector collector;
    benchmark::RegisterBenchmark("raw_ring_roundtrip", BM_raw_ring_roundtrip)->MinTime(0.5)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
    benchmark::RunSpecifiedBenchmarks(&collector);
    raw_exchange(kStop);
    benchmark::ClearRegisteredBenchmarks();
    benchmark::RegisterBenchmark("gaspi_passive_roundtrip", BM_gaspi_passive_roundtrip)->MinTime(0.5)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
    benchmark::RunSpecifiedBenchmarks(&collector);
    std::memcpy(g_seg + kOut, &kStop, 8);
    ok(gaspi_passive_send(kSeg, kOut, 1, 8, GASPI_BLOCK), "passive_send stop");

    const double ours = collector.ns["gaspi_passive_roundtrip"], raw = collector.ns["raw_ring_roundtrip"];
    std::printf("\n%-44s %12s %12s %8s\n", "figure (median of 5)", "HyGASPI", "floor", "ratio");
    std::printf("%-44s %9.0f ns %9.0f ns %8.2f\n", "round trip 8 B passive send -> receive", ours, raw,
                raw > 0 ? ours / raw : 0.0);
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return 0;
}
