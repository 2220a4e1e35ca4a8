// The Open MPI floor for bench/bench_collectives.cpp: the same three collectives, the same counts,
// the same slowest-rank reporting and the same table rows.
//   barrier         MPI_Barrier(MPI_COMM_WORLD)
//   allreduce 8 B   MPI_Allreduce of 1 double, MPI_SUM
//   allreduce 64 KiB MPI_Allreduce of 8192 doubles, MPI_SUM
// Run: OMPI_MCA_pml=ob1 mpirun [--allow-run-as-root] --oversubscribe -np N mpi_collectives [scale]
#include "bench_table.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kLargeElems = 8192; // 64 KiB of doubles

void ok(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::fprintf(stderr, "bench: %s failed: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// Runs `op` warm-up + count times on every rank; returns the slowest rank's µs per op.
template <class Op> double timed(long count, Op &&op) {
  return bench::timed(
      count, op, [] { ok(MPI_Barrier(MPI_COMM_WORLD), "barrier"); },
      [](double us) {
        double slowest = 0;
        ok(MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "allreduce");
        return slowest;
      });
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const double scale = argc > 1 ? std::atof(argv[1]) : 1.0;
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  const bench::CollectiveCounts counts = bench::collective_counts(scale);
  const double expect = n * (n + 1) / 2.0;
  long wrong = 0;
  double one = rank + 1, one_sum = 0;
  std::vector<double> big(kLargeElems, rank + 1), big_sum(kLargeElems, 0);

  double t_barrier = timed(counts.barriers, [] { ok(MPI_Barrier(MPI_COMM_WORLD), "barrier"); });
  double t_small = timed(counts.small, [&] {
    one_sum = 0;
    ok(MPI_Allreduce(&one, &one_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "allreduce 8 B");
    wrong += one_sum != expect;
  });
  double t_large = timed(counts.large, [&] {
    big_sum.front() = big_sum.back() = 0;
    ok(MPI_Allreduce(big.data(), big_sum.data(), kLargeElems, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "allreduce 64 KiB");
    wrong += big_sum.front() != expect || big_sum.back() != expect;
  });
  for (double v : big_sum)
    wrong += v != expect;

  long wrong_all = 0;
  ok(MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), "allreduce");
  if (rank == 0)
    bench::collectives_table("Open MPI", n, counts, t_barrier, t_small, t_large, wrong_all);
  MPI_Finalize();
  return wrong_all ? 1 : 0;
}
