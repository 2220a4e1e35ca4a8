// Latency of an operation aimed at a rank that is computing (no GASPI call for 20 ms), over the
// MPI path, with and without the progress thread (DESIGN.md "Progress and threads": MPI makes no
// asynchronous progress here, so a target-side atomic waits until the target enters GASPI).
//   mpirun -np 2 -x HYGASPI_NODE_SIZE=1 [-x HYGASPI_PROGRESS_THREAD=1] bench_progress
#include <GASPI.h>
#include <GASPI_Ext.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
void ok(gaspi_return_t rc, const char *what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "bench_progress: %s failed: %s\n", what, gaspi_error_str(rc));
    std::exit(1);
  }
}
using Clock = std::chrono::steady_clock;
} // namespace

int main() {
  ok(gaspi_proc_init(GASPI_BLOCK), "proc_init");
  gaspi_rank_t me = 0, n = 0;
  ok(gaspi_proc_rank(&me), "rank");
  ok(gaspi_proc_num(&n), "num");
  ok(gaspi_segment_create(0, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment_create");
  constexpr int kRounds = 10;
  constexpr auto kBusy = std::chrono::milliseconds(20);
  std::vector<double> us;
  for (int round = 0; round < kRounds; ++round) {
    ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
    if (me == 1) {
      // Compute without entering GASPI (or MPI).
      const auto end = Clock::now() + kBusy;
      volatile unsigned long spin = 0;
      while (Clock::now() < end)
        spin = spin + 1;
    } else if (me == 0) {
      const auto start = Clock::now();
      gaspi_atomic_value_t old = 0;
      ok(gaspi_atomic_fetch_add(0, 0, 1, 1, &old, GASPI_BLOCK), "fetch_add");
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  if (me == 0) {
    std::sort(us.begin(), us.end());
    const char *thread = std::getenv("HYGASPI_PROGRESS_THREAD");
    std::printf("fetch_add to a rank computing for %lld ms, progress thread %s: median %.1f us, max %.1f us\n",
                static_cast<long long>(kBusy.count()), thread != nullptr && thread[0] == '1' ? "on " : "off",
                us[us.size() / 2], us.back());
  }
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return 0;
}
