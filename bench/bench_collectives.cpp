// Collectives on one node, for any rank count (run at 2, 4 and 8 ranks):
//   barrier         gaspi_barrier(GASPI_GROUP_ALL)
//   allreduce 8 B   gaspi_allreduce of 1 double, SUM
//   allreduce 64 KiB gaspi_allreduce of 8192 doubles, SUM (allreduce_elem_max/buf_size raised first)
// Each rank runs the same fixed count (after a warm-up of a tenth of it) and times it with
// steady_clock; the figure is the slowest rank's time / count, found by an allreduce MAX. The floor
// for these is bench/mpi_collectives.cpp, which prints the same rows for Open MPI on the same node.
// Run: hygaspi-run -n N -- bench_collectives [scale]   (scale < 1 shortens every count)
#include "bench_table.hpp"

#include <GASPI.h>
#include <GASPI_Ext.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr gaspi_number_t kLargeElems = 8192; // 64 KiB of doubles

void ok(gaspi_return_t rc, const char *what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "bench: %s failed: %s\n", what, gaspi_error_str(rc));
    std::exit(1);
  }
}

// Runs `op` warm-up + count times on every rank; returns the slowest rank's µs per op.
template <class Op> double timed(long count, Op &&op) {
  return bench::timed(
      count, op, [] { ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier"); },
      [](double us) {
        double slowest = 0;
        ok(gaspi_allreduce(&us, &slowest, 1, GASPI_OP_MAX, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK),
           "allreduce");
        return slowest;
      });
}

} // namespace

int main(int argc, char **argv) {
  const double scale = argc > 1 ? std::atof(argv[1]) : 1.0;
  gaspi_config_t config;
  ok(gaspi_config_get(&config), "config_get");
  config.allreduce_elem_max = kLargeElems;
  config.allreduce_buf_size = kLargeElems * sizeof(double);
  ok(gaspi_config_set(config), "config_set");
  ok(gaspi_proc_init(GASPI_BLOCK), "proc_init");
  gaspi_rank_t rank = 0, n = 0;
  ok(gaspi_proc_rank(&rank), "rank");
  ok(gaspi_proc_num(&n), "num");

  const bench::CollectiveCounts counts = bench::collective_counts(scale);
  // Each rank contributes rank + 1, so every element of every result must be n(n+1)/2.
  const double expect = n * (n + 1) / 2.0;
  long wrong = 0;
  double one = rank + 1, one_sum = 0;
  std::vector<double> big(kLargeElems, rank + 1), big_sum(kLargeElems, 0);

  double t_barrier = timed(counts.barriers, [] { ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier"); });
  double t_small = timed(counts.small, [&] {
    one_sum = 0;
    ok(gaspi_allreduce(&one, &one_sum, 1, GASPI_OP_SUM, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK),
       "allreduce 8 B");
    wrong += one_sum != expect;
  });
  double t_large = timed(counts.large, [&] {
    big_sum.front() = big_sum.back() = 0;
    ok(gaspi_allreduce(big.data(), big_sum.data(), kLargeElems, GASPI_OP_SUM, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL,
                       GASPI_BLOCK),
       "allreduce 64 KiB");
    wrong += big_sum.front() != expect || big_sum.back() != expect;
  });
  for (double v : big_sum)
    wrong += v != expect;

  long wrong_all = 0;
  ok(gaspi_allreduce(&wrong, &wrong_all, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK), "allreduce");
  if (rank == 0)
    bench::collectives_table("HyGASPI", n, counts, t_barrier, t_small, t_large, wrong_all);
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return wrong_all ? 1 : 0;
}
