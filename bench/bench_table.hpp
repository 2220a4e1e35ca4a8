// Shared by bench_collectives.cpp (HyGASPI) and mpi_collectives.cpp (its Open MPI floor), so that
// both run the same counts, time them the same way and print the same rows. Depends on neither
// GASPI nor MPI: each program passes in its own barrier and max-reduction.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace bench {

// How many of each collective to time; scale < 1 shortens every count (10 at the least).
struct CollectiveCounts {
  long barriers, small, large;
};

inline CollectiveCounts collective_counts(double scale) {
  return {std::max(10l, static_cast<long>(2000 * scale)), std::max(10l, static_cast<long>(2000 * scale)),
          std::max(10l, static_cast<long>(200 * scale))};
}

// Runs `op` warm-up (a tenth of count) + count times on every rank, the timed part starting after
// `barrier()`; returns the slowest rank's µs per op, `max_all(x)` giving the maximum of x over ranks.
template <class Op, class Barrier, class MaxAll>
double timed(long count, Op &&op, Barrier &&barrier, MaxAll &&max_all) {
  for (long i = 0; i < count / 10; ++i)
    op();
  barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < count; ++i)
    op();
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  return max_all(us) / static_cast<double>(count);
}

// Rank 0's report: an error line if any result was wrong, then the table of the three collectives.
inline void collectives_table(const char *runtime, long ranks, const CollectiveCounts &c, double t_barrier,
                              double t_small, double t_large, long wrong) {
  if (wrong)
    std::printf("ERROR: %ld allreduce results were wrong\n", wrong);
  std::printf("%s collectives, slowest rank's time / count\n", runtime);
  std::printf("%5s | %-16s | %6s | %10s\n", "ranks", "op", "count", "µs/op");
  std::printf("%5ld | %-16s | %6ld | %10.3f\n", ranks, "barrier", c.barriers, t_barrier);
  std::printf("%5ld | %-16s | %6ld | %10.3f\n", ranks, "allreduce 8 B", c.small, t_small);
  std::printf("%5ld | %-16s | %6ld | %10.3f\n", ranks, "allreduce 64 KiB", c.large, t_large);
}

} // namespace bench
