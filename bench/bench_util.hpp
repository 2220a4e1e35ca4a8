// Helpers shared by the 2-rank Google-Benchmark programs (bench_shm, bench_atomics, bench_passive):
// each measures a GASPI figure beside the raw floor underneath it and prints a ratio table.
#pragma once

#include <GASPI.h>
#include <GASPI_Ext.h> // gaspi_error_str
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace bench {

// Exits 1, naming the call and the runtime's error text, when a GASPI call fails.
inline void ok(gaspi_return_t rc, const char *what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "bench: %s failed: %s\n", what, gaspi_error_str(rc));
    std::exit(1);
  }
}

// gaspi_proc_init, then checks the job has exactly 2 ranks; returns this rank. Otherwise rank 0
// says how to run `name`, and every rank terminates and exits 2.
inline gaspi_rank_t two_rank_init(const char *argv0, const char *name) {
  ok(gaspi_proc_init(GASPI_BLOCK), "proc_init");
  gaspi_rank_t rank = 0, n = 0;
  ok(gaspi_proc_rank(&rank), "rank");
  ok(gaspi_proc_num(&n), "num");
  if (n != 2) {
    if (rank == 0)
      std::fprintf(stderr, "%s needs exactly 2 ranks: hygaspi-run -n 2 -- %s\n", name, argv0);
    gaspi_proc_term(GASPI_BLOCK);
    std::exit(2);
  }
  return rank;
}

// The raw floor's shared memory: a T in a shm object of our own, "/hygaspi-<HYGASPI_JOB or solo>-
// <suffix>" (named after the job, so the launcher removes it). Collective over GASPI_GROUP_ALL:
// rank 0 creates and sizes it (zeroed) before a barrier, the other ranks open it after; a second
// barrier has every rank mapped before any uses it.
template <class T> T *map_raw(const char *suffix) {
  gaspi_rank_t rank = 0;
  ok(gaspi_proc_rank(&rank), "rank");
  const char *job = std::getenv("HYGASPI_JOB");
  const std::string name = std::string("/hygaspi-") + (job ? job : "solo") + "-" + suffix;
  auto map = [&] {
    int fd = shm_open(name.c_str(), O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, sizeof(T)) != 0)
      std::exit(1);
    void *p = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
      std::exit(1);
    return static_cast<T *>(p);
  };
  T *raw = rank == 0 ? map() : nullptr;
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  if (rank != 0)
    raw = map();
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  return raw;
}

// A user counter that reports seconds per `ops` (a rate, inverted); the reporter's value x 1e9 is ns.
inline benchmark::Counter seconds_per(double ops) {
  return benchmark::Counter(ops, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The repetition setup every figure uses: median of 5, aggregates only, wall-clock time.
inline benchmark::internal::Benchmark *median_of_5(benchmark::internal::Benchmark *b) {
  return b->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
}

// Console reporter (colour only on a terminal, so logs stay plain text) that also keeps every
// counter of each run's median aggregate -- user counters and bytes_per_second alike -- keyed by
// run name ("function" or "function/args") and counter name.
class Collector : public benchmark::ConsoleReporter {
public:
  Collector() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}
  std::map<std::string, std::map<std::string, double>> median;

  // The counter's median, 0 where that run or counter is missing.
  double get(const std::string &run, const std::string &counter) const {
    auto r = median.find(run);
    if (r == median.end())
      return 0;
    auto c = r->second.find(counter);
    return c == r->second.end() ? 0 : c->second;
  }

  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto &r : runs) {
      if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median")
        continue;
      auto &into = median[r.run_name.function_name + (r.run_name.args.empty() ? "" : "/" + r.run_name.args)];
      for (const auto &[counter, value] : r.counters)
        into[counter] = value.value;
    }
  }
};

// The ratio table: a header, then one row a figure -- ours and the floor, each `decimals` places
// followed by `unit` in 12 columns, their ratio, and the target (the header and rows without a
// target column where `target` is null).
inline void header(bool with_target = true) {
  std::printf("\n%-44s %12s %12s %8s%s\n", "figure (median of 5)", "HyGASPI", "floor", "ratio",
              with_target ? " target" : "");
}

// `ratio`: ours / floor unless given (a figure timed by turns: the median of its turns' ratios).
inline void row(const char *figure, double ours, double floor, const char *unit, int decimals,
                const char *target = nullptr, double ratio = 0) {
  const int width = 11 - static_cast<int>(std::strlen(unit));
  if (ratio == 0 && floor > 0)
    ratio = ours / floor;
  std::printf("%-44s %*.*f %s %*.*f %s %8.2f%s%s\n", figure, width, decimals, ours, unit, width, decimals, floor, unit,
              ratio, target ? " " : "", target ? target : "");
}

} // namespace bench
