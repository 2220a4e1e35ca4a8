// Ways a GASPI rank can leave a job, as programs written without our code in mind do it. Run by
// tests/exits/run_exits.sh, which checks each rank's lines, the exit code and the elapsed time.
//   return WAIT: the last rank returns from main after init without gaspi_proc_term; every other
//                rank waits for it with GASPI_BLOCK in WAIT (barrier, allreduce, notify: a
//                notification it never sends, passive: a message it never sends) and must get
//                GASPI_ERROR, printing "SURVIVOR <rank> <rc> <ms>". Ranks that cannot see the death
//                (another node under mpirun) are ended with the job by mpirun instead.
//   exit_computing: the last rank calls exit(0) without gaspi_proc_term while the others compute
//                (no GASPI call) for up to 30 s; rank 0 prints "VICTIM_GONE <ms>" once the
//                victim's process has ended. The others then leave with _exit(0), since nothing
//                of the job can be completed without the victim.
//   exit_code: the last rank calls exit(5) without gaspi_proc_term while every other rank returns 0
//                from main without it, at once: the job's code is 5 (the launcher used to report
//                the 1 of whichever rank that left without term it reaped first).
//   threads: a GPI-2 style program that starts threads with gaspi_threads_run (one still runs at
//                exit) and never calls gaspi_threads_term; it must exit 0 ("SUCCESS threads").
#include <GASPI_Threads.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "../mr/mr_util.hpp"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // GASPI_Threads.h is deprecated in GPI-2 too

namespace {

constexpr gaspi_segment_id_t kSeg = 0;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool process_gone(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return true;
  const auto paren = line.rfind(')');
  return paren == std::string::npos || line.size() < paren + 3 || line[paren + 2] == 'Z';
}

gaspi_return_t wait_for_victim(const std::string &what, gaspi_rank_t victim) {
  if (what == "barrier")
    return gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK);
  if (what == "allreduce") {
    double in = 1, out = 0;
    return gaspi_allreduce(&in, &out, 1, GASPI_OP_SUM, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK);
  }
  if (what == "notify") {
    gaspi_notification_id_t first = 0;
    return gaspi_notify_waitsome(kSeg, victim, 1, &first, GASPI_BLOCK);
  }
  if (what == "passive") {
    gaspi_rank_t from = 0;
    return gaspi_passive_receive(kSeg, 0, &from, 64, GASPI_BLOCK);
  }
  std::fprintf(stderr, "unknown wait %s\n", what.c_str());
  std::_Exit(2);
}

void *team_member(void *) {
  gaspi_int tid = -1;
  MR_OK(gaspi_threads_register(&tid));
  return nullptr;
}

void *runs_on(void *) {
  for (;;)
    pause();
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  const gaspi_rank_t victim = static_cast<gaspi_rank_t>(n - 1);
  if (mode == "threads") {
    gaspi_int cores = 0;
    MR_OK(gaspi_threads_init(&cores));
    MR_OK(gaspi_threads_run(team_member, nullptr));
    MR_OK(gaspi_threads_run(runs_on, nullptr));
    mr_finish("threads");
    return 0; // no gaspi_threads_term; one started thread still runs
  }
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  auto *pids = static_cast<long *>(nullptr);
  {
    gaspi_pointer_t p = nullptr;
    MR_OK(gaspi_segment_ptr(kSeg, &p));
    pids = static_cast<long *>(p);
  }
  // Rank 0 learns every pid: each writes its own into rank 0's segment.
  pids[me] = getpid();
  MR_OK(gaspi_write(kSeg, me * sizeof(long), 0, kSeg, me * sizeof(long), sizeof(long), 0, GASPI_BLOCK));
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (mode == "return" && argc > 2) {
    if (me == victim) {
      std::printf("VICTIM returns\n");
      std::fflush(stdout);
      return 0;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const gaspi_return_t rc = wait_for_victim(argv[2], victim);
    std::printf("SURVIVOR %u %d %.0f\n", me, static_cast<int>(rc), ms_since(t0));
    std::fflush(stdout);
    _exit(rc == GASPI_ERROR ? 0 : 1); // the job cannot finish a collective without the victim
  }
  if (mode == "exit_code") {
    if (me == victim)
      std::exit(5);
    return 0;
  }
  if (mode == "exit_computing") {
    if (me == victim) {
      std::printf("VICTIM exits\n");
      std::fflush(stdout);
      std::exit(0);
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (me == 0) {
      while (!process_gone(pids[victim]) && ms_since(t0) < 30000)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::printf("VICTIM_GONE %.0f\n", ms_since(t0));
      std::fflush(stdout);
    } else {
      while (ms_since(t0) < 3000)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    _exit(0);
  }
  std::fprintf(stderr, "usage: %s return barrier|allreduce|notify|passive | exit_computing | exit_code | threads\n",
               argv[0]);
  return 2;
}
