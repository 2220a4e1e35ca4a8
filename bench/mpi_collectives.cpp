// The Open MPI floor for bench/bench_collectives.cpp: the same three collectives, the same counts,
// the same slowest-rank reporting and the same table rows.
//   barrier         MPI_Barrier(MPI_COMM_WORLD)
//   allreduce 8 B   MPI_Allreduce of 1 double, MPI_SUM
//   allreduce 64 KiB MPI_Allreduce of 8192 doubles, MPI_SUM
// Run: OMPI_MCA_pml=ob1 mpirun [--allow-run-as-root] --oversubscribe -np N mpi_collectives [scale]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kLargeElems = 8192;  // 64 KiB of doubles

void ok(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::fprintf(stderr, "bench: %s failed: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// Runs `op` warm-up + count times on every rank; returns the slowest rank's µs per op.
template <class Op>
double timed(long count, Op&& op) {
  for (long i = 0; i < count / 10; ++i)
    op();
  ok(MPI_Barrier(MPI_COMM_WORLD), "barrier");
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < count; ++i)
    op();
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  double slowest = 0;
  ok(MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "allreduce");
  return slowest / static_cast<double>(count);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const double scale = argc > 1 ? std::atof(argv[1]) : 1.0;
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  const long barriers = std::max(10l, static_cast<long>(2000 * scale));
  const long small = std::max(10l, static_cast<long>(2000 * scale));
  const long large = std::max(10l, static_cast<long>(200 * scale));
  const double expect = n * (n + 1) / 2.0;
  long wrong = 0;
  double one = rank + 1, one_sum = 0;
  std::vector<double> big(kLargeElems, rank + 1), big_sum(kLargeElems, 0);

  double t_barrier = timed(barriers, [] { ok(MPI_Barrier(MPI_COMM_WORLD), "barrier"); });
  double t_small = timed(small, [&] {
    one_sum = 0;
    ok(MPI_Allreduce(&one, &one_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "allreduce 8 B");
    wrong += one_sum != expect;
  });
  double t_large = timed(large, [&] {
    big_sum.front() = big_sum.back() = 0;
    ok(MPI_Allreduce(big.data(), big_sum.data(), kLargeElems, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
       "allreduce 64 KiB");
    wrong += big_sum.front() != expect || big_sum.back() != expect;
  });
  for (double v : big_sum)
    wrong += v != expect;

  long wrong_all = 0;
  ok(MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), "allreduce");
  if (rank == 0) {
    if (wrong_all)
      std::printf("ERROR: %ld allreduce results were wrong\n", wrong_all);
    std::printf("Open MPI collectives, slowest rank's time / count\n");
    std::printf("%5s | %-16s | %6s | %10s\n", "ranks", "op", "count", "µs/op");
    std::printf("%5d | %-16s | %6ld | %10.3f\n", n, "barrier", barriers, t_barrier);
    std::printf("%5d | %-16s | %6ld | %10.3f\n", n, "allreduce 8 B", small, t_small);
    std::printf("%5d | %-16s | %6ld | %10.3f\n", n, "allreduce 64 KiB", large, t_large);
  }
  MPI_Finalize();
  return wrong_all ? 1 : 0;
}
