// The MPI progress thread while the application does not call the library. It must wake rarely
// once its steps find nothing to serve (HYGASPI_PROGRESS_NAP_US, 1 ms by default): with a fixed
// 50 us nap it woke 20,000 times a second, which on a node where every core runs a rank takes
// cores from the ranks and slowed the application's own MPI calls by half. And it must still
// serve a request aimed at a rank that computes after such a quiet spell. Runs where the thread
// runs: on the paths whose job spans nodes, with the library starting MPI.
#include <dirent.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "mr_util.hpp"

namespace {

// The voluntary context switches of this process's thread named "hyg-progress" (one per nap), or
// -1 when there is no such thread.
long progress_thread_naps() {
  DIR *tasks = opendir("/proc/self/task");
  MR_CHECK(tasks != nullptr);
  long naps = -1;
  while (const dirent *task = readdir(tasks)) {
    if (task->d_name[0] == '.')
      continue;
    const std::string dir = std::string("/proc/self/task/") + task->d_name;
    std::string comm;
    std::getline(std::ifstream(dir + "/comm"), comm);
    if (comm != "hyg-progress")
      continue;
    std::ifstream status(dir + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0)
        naps = std::stol(line.substr(std::strlen("voluntary_ctxt_switches:")));
  }
  closedir(tasks);
  return naps;
}

} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_CHECK(n >= 2);
  MR_OK(gaspi_segment_create(0, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t base = nullptr;
  MR_OK(gaspi_segment_ptr(0, &base));
  auto *words = static_cast<volatile gaspi_atomic_value_t *>(base);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // 1. Quiet: no call into the library for 500 ms. The nap reaches 1 ms within 5 naps (50 us,
  // doubled), so about 500 naps; at 50 us (with the timer slack) it was about 3,000.
  MR_CHECK(progress_thread_naps() >= 0); // every rank of a job across nodes runs the thread
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const long before = progress_thread_naps();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long naps = progress_thread_naps() - before;
  if (naps > 1000) {
    std::fprintf(stderr, "rank %u: the progress thread napped %ld times in 500 ms with nothing to serve\n", me, naps);
    MR_CHECK(naps <= 1000);
  }

  // 2. Rank 0 computes (it spins on its own memory and never calls the library) while every other
  // rank adds to its word 0 (served by rank 0's progress thread across nodes) and then raises its
  // flag (word me) with a write.
  if (me == 0) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (gaspi_rank_t r = 1; r < n; ++r)
      while (words[r] == 0) {
        MR_CHECK(std::chrono::steady_clock::now() < give_up);
        sched_yield();
      }
    MR_CHECK(words[0] == static_cast<gaspi_atomic_value_t>(n - 1));
  } else {
    gaspi_atomic_value_t old = 0;
    MR_OK(gaspi_atomic_fetch_add(0, 0, 0, 1, &old, GASPI_BLOCK));
    MR_CHECK(old < static_cast<gaspi_atomic_value_t>(n - 1));
    auto *mine = static_cast<gaspi_atomic_value_t *>(base) + 64; // the source of the flag's write
    *mine = 1;
    MR_OK(gaspi_write(0, 64 * sizeof(gaspi_atomic_value_t), 0, 0, me * sizeof(gaspi_atomic_value_t),
                      sizeof(gaspi_atomic_value_t), 0, GASPI_BLOCK));
    MR_OK(gaspi_wait(0, GASPI_BLOCK));
  }
  mr_finish("mr_progress_idle");
  return 0;
}
