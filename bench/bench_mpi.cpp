// Inter-node benchmarks: HyGASPI's MPI transport beside raw MPI doing the same work, in
// the same process and the same run. Run under mpirun with HYGASPI_NODE_SIZE=1, so that every rank
// is a node of its own and the two ranks talk over MPI even on one host:
//   OMPI_MCA_pml=ob1 HYGASPI_NODE_SIZE=1 mpirun --oversubscribe -x HYGASPI_NODE_SIZE -np 2 bench_mpi
//
// Point-to-point figures (rank 0 -> rank n-1; "p2p"):
//   8 B / 1 MiB   gaspi_write + gaspi_wait            vs MPI_Put + MPI_Win_flush
//   8 B one-way   gaspi_write_notify ping-pong / 2    vs put + flush + notification put + flush,
//                                                        the target polling its word with
//                                                        MPI_Win_sync + MPI_Iprobe
//   fetch_add     gaspi_atomic_fetch_add (the target  vs MPI_Fetch_and_op (MPI_SUM, MPI_UINT64_T)
//                 executes it: request/reply)            + MPI_Win_flush
// Collectives (all ranks; "coll"): gaspi_barrier, gaspi_allreduce of 1 double vs MPI_Barrier and
// MPI_Allreduce on MPI_COMM_WORLD; the figure is the slowest rank's time / count.
//
// The raw baseline has windows of its own on MPI_COMM_WORLD (the library works on a duplicate):
// a window of the kind the library gives a segment made by gaspi_segment_create on
// GASPI_GROUP_ALL ("MPI win", the like-for-like floor that the targets refer to: MPI_Win_create
// over the buffer, or a dynamic window with the buffer attached where HYGASPI_DYNAMIC_WINDOW=1
// makes the library use its dynamic window), and an MPI_Win_allocate window as a second reference
// ("MPI alloc"). Every figure runs a fixed count on every rank (warm-up: a tenth of it), 5 repetitions
// with the three variants interleaved; the table shows each column's median.
// Run: bench_mpi [all|p2p|coll] [scale]   (scale < 1 shortens every count)
#include "bench_median.hpp"

#include <GASPI.h>
#include <GASPI_Ext.h>
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr std::size_t kBig = 1u << 20;         // the large transfer; [0, kBig) receives
constexpr std::size_t kSource = kBig;          // [kBig, 2 kBig) is the source of every put
constexpr std::size_t kWords = 2 * kBig;       // raw notification words and the atomic word
constexpr std::size_t kPingWord = kWords;      // raw: uint32 ping flag
constexpr std::size_t kPongWord = kWords + 64; // raw: uint32 pong flag
constexpr std::size_t kAtomicWord = kWords + 128;
constexpr std::size_t kBytes = 2 * kBig + 4096;
constexpr gaspi_notification_id_t kPing = 0, kPong = 1, kStop = 2;
constexpr int kReps = 5;

int g_rank = 0, g_n = 0, g_peer = 0;
double g_scale = 1;

using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

void ok(gaspi_return_t rc, const char *what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "bench_mpi: %s failed: %s\n", what, gaspi_error_str(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

std::string mpi_error(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

void mpi_ok(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "bench_mpi: %s failed: %s\n", what, mpi_error(rc).c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

long count_of(long base) { return std::max(10l, static_cast<long>(static_cast<double>(base) * g_scale)); }

// ---- the raw windows

struct RawWin {
  const char *name = "";
  MPI_Win win = MPI_WIN_NULL;
  char *base = nullptr;
  std::vector<MPI_Aint> at; // displacement of every rank's buffer
};

MPI_Info window_info() {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "accumulate_ordering", "none"); // as the library sets it on its window
  return info;
}

RawWin make_like_ours() {
  const char *knob = std::getenv("HYGASPI_DYNAMIC_WINDOW");
  const bool dynamic = knob != nullptr && std::strcmp(knob, "1") == 0;
  RawWin w;
  w.name = dynamic ? "dynamic" : "create";
  w.base = static_cast<char *>(std::aligned_alloc(4096, kBytes));
  std::memset(w.base, 0, kBytes);
  MPI_Info info = window_info();
  if (dynamic)
    mpi_ok(MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &w.win), "MPI_Win_create_dynamic");
  else
    mpi_ok(MPI_Win_create(w.base, kBytes, 1, info, MPI_COMM_WORLD, &w.win), "MPI_Win_create");
  MPI_Info_free(&info);
  MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
  w.at.assign(static_cast<std::size_t>(g_n), 0);
  if (dynamic) {
    mpi_ok(MPI_Win_attach(w.win, w.base, kBytes), "MPI_Win_attach");
    MPI_Aint mine = 0;
    MPI_Get_address(w.base, &mine);
    mpi_ok(MPI_Allgather(&mine, 1, MPI_AINT, w.at.data(), 1, MPI_AINT, MPI_COMM_WORLD), "MPI_Allgather");
  }
  mpi_ok(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.win), "MPI_Win_lock_all");
  return w;
}

RawWin make_allocated() {
  RawWin w;
  w.name = "allocate";
  MPI_Info info = window_info();
  mpi_ok(MPI_Win_allocate(kBytes, 1, info, MPI_COMM_WORLD, &w.base, &w.win), "MPI_Win_allocate");
  MPI_Info_free(&info);
  MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
  std::memset(w.base, 0, kBytes);
  w.at.assign(static_cast<std::size_t>(g_n), 0);
  mpi_ok(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.win), "MPI_Win_lock_all");
  mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  return w;
}

void free_window(RawWin &w) {
  MPI_Win_unlock_all(w.win);
  MPI_Win_free(&w.win);
  if (std::strcmp(w.name, "allocate") != 0)
    std::free(w.base);
}

MPI_Aint disp(const RawWin &w, int rank, std::size_t offset) {
  return w.at[static_cast<std::size_t>(rank)] + static_cast<MPI_Aint>(offset);
}

// Waits until our uint32 at `offset` holds `expect`, then clears it: MPI_Win_sync makes the
// origin's put visible to our loads (unified model), MPI_Iprobe drives progress for components
// that need it. True when a poll saw another nonzero value first: MPI_Win_allocate's window
// (osc/sm) now and then showed the value before, cleared already, once more (seen 2-5 times in 8
// runs), and a wait that took any nonzero value then fell out of step with its partner and hung.
bool raw_wait(const RawWin &w, std::size_t offset, std::uint32_t expect) {
  std::atomic_ref<std::uint32_t> word(*reinterpret_cast<std::uint32_t *>(w.base + offset));
  bool stale = false;
  for (;;) {
    MPI_Win_sync(w.win);
    const std::uint32_t v = word.load(std::memory_order_acquire);
    if (v == expect) {
      word.store(0, std::memory_order_release);
      return stale;
    }
    stale = stale || v != 0;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
}

// put + flush + notification put + flush: what gaspi_write_notify does on its window.
void raw_write_notify(const RawWin &w, int to, std::size_t data, std::size_t word, std::uint32_t value) {
  int rc = MPI_Put(w.base + kSource, 8, MPI_BYTE, to, disp(w, to, data), 8, MPI_BYTE, w.win);
  if (rc == MPI_SUCCESS)
    rc = MPI_Win_flush(to, w.win);
  if (rc == MPI_SUCCESS)
    rc = MPI_Put(&value, 1, MPI_UINT32_T, to, disp(w, to, word), 1, MPI_UINT32_T, w.win);
  if (rc == MPI_SUCCESS)
    rc = MPI_Win_flush(to, w.win);
  mpi_ok(rc, "raw write_notify");
}

// ---- measurement

// A variant's body: every rank runs it with the same count after a world barrier; it returns this
// rank's µs per op (ranks that only serve return 0). NaN marks a variant that failed.
struct Variant {
  const char *name;
  std::function<double(long)> body;
};

// Warm-up, then kReps repetitions with the variants interleaved; the median over repetitions of
// the slowest rank's µs per op, per variant. `reps`, when given, receives every repetition's
// figures (reps[variant][repetition]), to set two variants timed by turns against each other.
std::vector<double> measure(long count, std::vector<Variant> &variants,
                            std::vector<std::vector<double>> *reps = nullptr) {
  std::vector<std::vector<double>> runs(variants.size());
  auto once = [&](Variant &v, long c) {
    mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double mine = v.body(c);
    double in[2] = {std::isnan(mine) ? 0 : mine, std::isnan(mine) ? 1.0 : 0.0}, out[2] = {0, 0};
    mpi_ok(MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return out[1] > 0 ? std::nan("") : out[0];
  };
  for (auto &v : variants)
    if (v.body)
      once(v, std::max(1l, count / 10));
  for (int r = 0; r < kReps; ++r)
    for (std::size_t i = 0; i < variants.size(); ++i)
      if (variants[i].body)
        runs[i].push_back(once(variants[i], count));
  if (reps != nullptr)
    *reps = runs;
  std::vector<double> medians;
  for (auto &r : runs)
    medians.push_back(r.empty() ? -1 : bench::median(r));
  return medians;
}

// The table: figure | HyGASPI | raw MPI (a window like ours) | ratio | raw MPI (Win_allocate) | ratio
// | target, met or missed against the like-for-like floor. Bandwidth rows take `bandwidth` true
// (the ratio must be at least the target); latency rows at most.
void header() {
  if (g_rank != 0)
    return;
  std::printf("\n%-40s %12s %12s %7s %12s %7s  %s\n", "figure (median of 5)", "HyGASPI", "MPI win", "ratio",
              "MPI alloc", "ratio", "target (vs MPI win)");
  std::fflush(stdout);
}

std::string cell(double v, const char *unit, int decimals) {
  char s[64];
  if (v < 0)
    std::snprintf(s, sizeof s, "-");
  else if (std::isnan(v))
    std::snprintf(s, sizeof s, "failed");
  else
    std::snprintf(s, sizeof s, "%.*f %s", decimals, v, unit);
  return s;
}

std::string ratio(double ours, double floor) {
  char s[32];
  if (floor > 0 && ours >= 0 && !std::isnan(ours) && !std::isnan(floor))
    std::snprintf(s, sizeof s, "%.2f", ours / floor);
  else
    std::snprintf(s, sizeof s, "-");
  return s;
}

void row(const char *figure, double ours, double dyn, double alloc, const char *unit, int decimals, double target,
         bool bandwidth) {
  if (g_rank != 0)
    return;
  std::string verdict;
  if (target > 0) {
    char t[48];
    std::snprintf(t, sizeof t, "%s %.1f", bandwidth ? ">=" : "<=", target);
    verdict = t;
    if (dyn > 0 && ours > 0 && !std::isnan(ours) && !std::isnan(dyn)) {
      const double r = ours / dyn;
      verdict += (bandwidth ? r >= target : r <= target) ? "  met" : "  MISSED";
    }
  }
  std::printf("%-40s %12s %12s %7s %12s %7s  %s\n", figure, cell(ours, unit, decimals).c_str(),
              cell(dyn, unit, decimals).c_str(), ratio(ours, dyn).c_str(), cell(alloc, unit, decimals).c_str(),
              ratio(ours, alloc).c_str(), verdict.c_str());
  std::fflush(stdout);
}

// ---- point-to-point figures

// gaspi_write of `size` + gaspi_wait, back to back, rank 0 -> peer.
double gaspi_write_wait(long count, gaspi_size_t size) {
  double us = 0;
  if (g_rank == 0) {
    const auto t0 = Clock::now();
    for (long i = 0; i < count; ++i) {
      ok(gaspi_write(kSeg, kSource, static_cast<gaspi_rank_t>(g_peer), kSeg, 0, size, 0, GASPI_BLOCK), "write");
      ok(gaspi_wait(0, GASPI_BLOCK), "wait");
    }
    us = us_since(t0) / static_cast<double>(count);
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  return us;
}

double raw_put_flush(const RawWin &w, long count, int size) {
  double us = 0;
  if (g_rank == 0) {
    const auto t0 = Clock::now();
    for (long i = 0; i < count; ++i) {
      int rc = MPI_Put(w.base + kSource, size, MPI_BYTE, g_peer, disp(w, g_peer, 0), size, MPI_BYTE, w.win);
      if (rc == MPI_SUCCESS)
        rc = MPI_Win_flush(g_peer, w.win);
      mpi_ok(rc, "raw put + flush");
    }
    us = us_since(t0) / static_cast<double>(count);
  }
  mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  return us;
}

// 8 B write_notify ping-pong; returns half the round trip.
double gaspi_pingpong(long count) {
  double us = 0;
  auto write_notify = [](int to, gaspi_notification_id_t id) {
    gaspi_return_t rc;
    while ((rc = gaspi_write_notify(kSeg, kSource, static_cast<gaspi_rank_t>(to), kSeg, 0, 8, id, 1, 0, GASPI_BLOCK)) ==
           GASPI_QUEUE_FULL)
      ok(gaspi_wait(0, GASPI_BLOCK), "wait");
    ok(rc, "write_notify");
  };
  auto wait_reset = [](gaspi_notification_id_t id) {
    gaspi_notification_id_t got = 0;
    gaspi_notification_t val = 0;
    ok(gaspi_notify_waitsome(kSeg, id, 1, &got, GASPI_BLOCK), "waitsome");
    ok(gaspi_notify_reset(kSeg, id, &val), "reset");
  };
  if (g_rank == 0) {
    const auto t0 = Clock::now();
    for (long i = 0; i < count; ++i) {
      write_notify(g_peer, kPing);
      wait_reset(kPong);
    }
    us = us_since(t0) / static_cast<double>(count) / 2;
  } else if (g_rank == g_peer) {
    for (long i = 0; i < count; ++i) {
      wait_reset(kPing);
      write_notify(0, kPong);
    }
  }
  ok(gaspi_wait(0, GASPI_BLOCK), "wait");
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  return us;
}

double raw_pingpong(const RawWin &w, long count) {
  double us = 0;
  long wrong = 0;
  if (g_rank == 0) {
    const auto t0 = Clock::now();
    for (long i = 0; i < count; ++i) {
      const auto k = static_cast<std::uint32_t>(i + 1);
      raw_write_notify(w, g_peer, 0, kPingWord, k);
      wrong += raw_wait(w, kPongWord, k);
    }
    us = us_since(t0) / static_cast<double>(count) / 2;
  } else if (g_rank == g_peer) {
    for (long i = 0; i < count; ++i) {
      const auto k = static_cast<std::uint32_t>(i + 1);
      wrong += raw_wait(w, kPingWord, k);
      raw_write_notify(w, 0, 0, kPongWord, k);
    }
  }
  if (wrong) // a note, not an error: the wait ignored the stale value
    std::fprintf(stderr, "note: raw ping-pong on the %s window saw a stale notification value %ld times\n", w.name,
                 wrong);
  mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  return us;
}

long g_wrong_atomics = 0;

// gaspi_atomic_fetch_add on the peer's segment. The peer serves requests while it waits: in
// gaspi_barrier (as the raw target waits in MPI_Barrier), or in a blocking gaspi_notify_waitsome.
double gaspi_fetch_add(long count, bool target_in_waitsome) {
  double us = 0;
  if (g_rank == 0) {
    gaspi_atomic_value_t first = 0, old = 0;
    if (target_in_waitsome) // let the target settle into its long-wait state first
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto t0 = Clock::now();
    for (long i = 0; i < count; ++i) {
      ok(gaspi_atomic_fetch_add(kSeg, kAtomicWord, static_cast<gaspi_rank_t>(g_peer), 1, &old, GASPI_BLOCK),
         "atomic_fetch_add");
      if (i == 0)
        first = old;
    }
    us = us_since(t0) / static_cast<double>(count);
    g_wrong_atomics += old - first != static_cast<gaspi_atomic_value_t>(count - 1);
    if (target_in_waitsome)
      ok(gaspi_notify(kSeg, static_cast<gaspi_rank_t>(g_peer), kStop, 1, 0, GASPI_BLOCK), "notify stop");
  } else if (g_rank == g_peer && target_in_waitsome) {
    gaspi_notification_id_t got = 0;
    gaspi_notification_t val = 0;
    ok(gaspi_notify_waitsome(kSeg, kStop, 1, &got, GASPI_BLOCK), "waitsome stop");
    ok(gaspi_notify_reset(kSeg, kStop, &val), "reset stop");
  }
  ok(gaspi_wait(0, GASPI_BLOCK), "wait");
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  return us;
}

// A crash inside MPI_Fetch_and_op (osc/rdma's MPI_Compare_and_swap segfaults here) is reported,
// not left as a bare signal; the atomic figures run last so the others are already printed.
const char *g_in_raw_atomic = nullptr;
void on_crash(int sig) {
  char text[200];
  const int len = std::snprintf(text, sizeof text,
                                "\nbench_mpi: rank %d: raw MPI_Fetch_and_op on the %s window crashed (signal %d)\n",
                                g_rank, g_in_raw_atomic ? g_in_raw_atomic : "?", sig);
  if (len > 0)
    (void)!write(STDERR_FILENO, text, static_cast<std::size_t>(len));
  _exit(3);
}

double raw_fetch_add(const RawWin &w, long count) {
  double us = 0;
  int failed = 0;
  if (g_rank == 0) {
    g_in_raw_atomic = w.name;
    std::signal(SIGSEGV, on_crash);
    std::signal(SIGBUS, on_crash);
    const std::uint64_t one = 1;
    std::uint64_t first = 0, old = 0;
    const auto t0 = Clock::now();
    for (long i = 0; i < count; ++i) {
      int rc = MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, g_peer, disp(w, g_peer, kAtomicWord), MPI_SUM, w.win);
      if (rc == MPI_SUCCESS)
        rc = MPI_Win_flush(g_peer, w.win);
      if (rc != MPI_SUCCESS) {
        std::fprintf(stderr, "bench_mpi: raw MPI_Fetch_and_op on the %s window failed: %s\n", w.name,
                     mpi_error(rc).c_str());
        failed = 1;
        break;
      }
      if (i == 0)
        first = old;
    }
    us = us_since(t0) / static_cast<double>(count);
    std::signal(SIGSEGV, SIG_DFL);
    std::signal(SIGBUS, SIG_DFL);
    g_in_raw_atomic = nullptr;
    if (!failed && old - first != static_cast<std::uint64_t>(count - 1)) {
      std::fprintf(stderr, "ERROR: raw MPI_Fetch_and_op on the %s window returned wrong old values\n", w.name);
      failed = 1;
    }
  }
  mpi_ok(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast"); // the target waits in MPI here
  return failed ? std::nan("") : us;
}

void p2p_figures(RawWin &dyn, RawWin &alloc) {
  {
    std::vector<Variant> v{{"gaspi", [](long c) { return gaspi_write_wait(c, 8); }},
                           {"dyn", [&](long c) { return raw_put_flush(dyn, c, 8); }},
                           {"alloc", [&](long c) { return raw_put_flush(alloc, c, 8); }}};
    auto m = measure(count_of(20000), v);
    row("8 B write + wait latency", m[0], m[1], m[2], "us", 3, 1.2, false);
  }
  {
    std::vector<Variant> v{{"gaspi", [](long c) { return gaspi_write_wait(c, kBig); }},
                           {"dyn", [&](long c) { return raw_put_flush(dyn, c, kBig); }},
                           {"alloc", [&](long c) { return raw_put_flush(alloc, c, kBig); }}};
    auto m = measure(count_of(500), v);
    row("1 MiB write + wait latency", m[0], m[1], m[2], "us", 1, 0, false);
    auto gbs = [](double us) { return us > 0 ? static_cast<double>(kBig) / us / 1e3 : us; };
    row("1 MiB write + wait bandwidth", gbs(m[0]), gbs(m[1]), gbs(m[2]), "GB/s", 2, 0.9, true);
  }
  {
    std::vector<Variant> v{{"gaspi", [](long c) { return gaspi_pingpong(c); }},
                           {"dyn", [&](long c) { return raw_pingpong(dyn, c); }},
                           {"alloc", [&](long c) { return raw_pingpong(alloc, c); }}};
    auto m = measure(count_of(10000), v);
    row("8 B write_notify one-way (ping-pong/2)", m[0], m[1], m[2], "us", 3, 1.3, false);
  }
}

void atomic_figures(RawWin &dyn, RawWin &alloc) {
  // The fourth variant: a burst to a target that has waited a while in gaspi_notify_waitsome
  // (here: 20 ms before the first request), which serves requests between naps (core/wait.hpp;
  // bench_progress waitsome splits the first request from the rest): fewer ops, whatever the count.
  // Timed in the same repetitions as the stream to a target in a barrier, so that their ratio (the
  // goal: at most 2) is taken repetition by repetition, in one state of this host.
  const long burst = count_of(100);
  std::vector<Variant> v{{"gaspi", [](long c) { return gaspi_fetch_add(c, false); }},
                         {"dyn", [&](long c) { return raw_fetch_add(dyn, c); }},
                         {"alloc", [&](long c) { return raw_fetch_add(alloc, c); }},
                         {"gaspi waitsome", [burst](long) { return gaspi_fetch_add(burst, true); }}};
  std::vector<std::vector<double>> reps;
  auto m = measure(count_of(5000), v, &reps);
  row("fetch_add (target in barrier)", m[0], m[1], m[2], "us", 3, 0, false);
  row("fetch_add (target long in waitsome)", m[3], m[1], m[2], "us", 3, 0, false);
  std::vector<double> ratios;
  for (std::size_t r = 0; r < reps[0].size() && r < reps[3].size(); ++r)
    ratios.push_back(reps[3][r] / reps[0][r]);
  if (g_rank == 0 && !ratios.empty()) {
    const double ratio = bench::median(ratios);
    std::printf("(fetch_add, target long in waitsome / in barrier, the median of the repetitions' ratios: %.2f; "
                "target <= 2 %s)\n",
                ratio, ratio <= 2 ? "met" : "MISSED");
  }
  long wrong = 0;
  MPI_Allreduce(&g_wrong_atomics, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0 && wrong)
    std::printf("ERROR: %ld gaspi_atomic_fetch_add runs returned wrong old values\n", wrong);
}

// ---- collectives

void collective_figures() {
  const double expect = g_n * (g_n + 1) / 2.0;
  long wrong = 0;
  {
    std::vector<Variant> v{{"gaspi",
                            [](long c) {
                              const auto t0 = Clock::now();
                              for (long i = 0; i < c; ++i)
                                ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
                              return us_since(t0) / static_cast<double>(c);
                            }},
                           {"mpi", [](long c) {
                              const auto t0 = Clock::now();
                              for (long i = 0; i < c; ++i)
                                mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
                              return us_since(t0) / static_cast<double>(c);
                            }}};
    auto m = measure(count_of(2000), v);
    char name[64];
    std::snprintf(name, sizeof name, "barrier, %d ranks", g_n);
    row(name, m[0], m[1], -1, "us", 3, 0, false);
  }
  {
    double one = g_rank + 1;
    std::vector<Variant> v{
        {"gaspi",
         [&](long c) {
           double sum = 0;
           const auto t0 = Clock::now();
           for (long i = 0; i < c; ++i) {
             ok(gaspi_allreduce(&one, &sum, 1, GASPI_OP_SUM, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK),
                "allreduce");
             wrong += sum != expect;
           }
           return us_since(t0) / static_cast<double>(c);
         }},
        {"mpi", [&](long c) {
           double sum = 0;
           const auto t0 = Clock::now();
           for (long i = 0; i < c; ++i) {
             mpi_ok(MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
             wrong += sum != expect;
           }
           return us_since(t0) / static_cast<double>(c);
         }}};
    auto m = measure(count_of(2000), v);
    char name[64];
    std::snprintf(name, sizeof name, "allreduce 8 B, %d ranks", g_n);
    row(name, m[0], m[1], -1, "us", 3, 0, false);
  }
  long wrong_all = 0;
  MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0 && wrong_all)
    std::printf("ERROR: %ld allreduce results were wrong\n", wrong_all);
}

} // namespace

int main(int argc, char **argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  g_scale = argc > 2 ? std::atof(argv[2]) : 1.0;
  if (what != "all" && what != "p2p" && what != "coll") {
    std::fprintf(stderr, "usage: %s [all|p2p|coll] [scale]\n", argv[0]);
    return 2;
  }
  // The library starts MPI (launched by mpirun) at MPI_THREAD_SERIALIZED, and the raw baselines
  // call MPI from this thread beside it: no progress thread of the library's may call MPI at the
  // same time, which MPI_THREAD_SERIALIZED forbids.
  setenv("HYGASPI_PROGRESS_THREAD", "0", 1);
  ok(gaspi_proc_init(GASPI_BLOCK), "proc_init");
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    std::fprintf(stderr, "bench_mpi: MPI is not initialised: run it under mpirun\n");
    gaspi_proc_term(GASPI_BLOCK);
    return 2;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_n);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  gaspi_rank_t grank = 0;
  ok(gaspi_proc_rank(&grank), "rank");
  if (grank != g_rank)
    mpi_ok(MPI_ERR_OTHER, "GASPI rank == MPI rank");
  g_peer = g_n - 1;
  const bool p2p = what != "coll";
  const char *node_size = std::getenv("HYGASPI_NODE_SIZE");
  // The nodes as the library sees them: virtual nodes of HYGASPI_NODE_SIZE ranks, or else the real
  // shared-memory nodes (hosts; under scripts/multihost.sh --bench, the two namespace "hosts").
  const int virtual_size = node_size ? std::atoi(node_size) : 0;
  MPI_Comm shared = MPI_COMM_NULL;
  if (virtual_size > 0)
    mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g_rank / virtual_size, g_rank, &shared), "MPI_Comm_split");
  else
    mpi_ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &shared),
           "MPI_Comm_split_type");
  int local_rank = 0, first_local = 0, nodes = 0, peer_local = 0;
  MPI_Comm_rank(shared, &local_rank);
  first_local = local_rank == 0 ? 1 : 0;
  mpi_ok(MPI_Allreduce(&first_local, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  { // does rank 0's node hold the peer?
    MPI_Group world_group, node_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(shared, &node_group);
    int in_node = MPI_UNDEFINED;
    MPI_Group_translate_ranks(world_group, 1, &g_peer, node_group, &in_node);
    peer_local = in_node != MPI_UNDEFINED ? 1 : 0;
    MPI_Group_free(&node_group);
    MPI_Group_free(&world_group);
  }
  MPI_Comm_free(&shared);
  if (g_rank == 0) {
    int level = 0;
    MPI_Query_thread(&level);
    const char *osc = std::getenv("OMPI_MCA_osc");
    const char *pml = std::getenv("OMPI_MCA_pml");
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int host_len = 0;
    MPI_Get_processor_name(host, &host_len);
    std::printf("bench_mpi: %d ranks on %d nodes, HYGASPI_NODE_SIZE=%s, OMPI_MCA_osc=%s, OMPI_MCA_pml=%s, "
                "thread level %d, scale %g, rank 0 on %s\n",
                g_n, nodes, node_size ? node_size : "(unset)", osc ? osc : "(unset)", pml ? pml : "(unset)", level,
                g_scale, host);
    if (p2p && (g_n < 2 || peer_local))
      std::printf("WARNING: rank 0 and rank %d share a node (shm, not MPI): set HYGASPI_NODE_SIZE=1\n", g_peer);
    std::fflush(stdout);
  }

  ok(gaspi_segment_create(kSeg, kBytes, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment_create");
  char *seg = nullptr;
  ok(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t *>(&seg)), "segment_ptr");
  std::memset(seg, 0, kBytes); // touch every page before timing
  RawWin dyn = make_like_ours();
  RawWin alloc = make_allocated();

  header();
  if (p2p && g_n >= 2)
    p2p_figures(dyn, alloc);
  if (what != "p2p")
    collective_figures();
  if (p2p && g_n >= 2)
    atomic_figures(dyn, alloc);

  free_window(alloc);
  free_window(dyn);
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return 0;
}
