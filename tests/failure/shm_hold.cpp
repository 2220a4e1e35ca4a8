// The rank program of tests/failure/shm_cleanup.sh: every rank creates two segments, prints its
// job id and how many /dev/shm objects of the job it sees, and then
//   crash: rank 1 (or 0 in a 1-rank job) SIGKILLs itself; the others wait in a barrier forever
//   hang:  every rank waits in gaspi_notify_waitsome forever (until SIGINT or --timeout)
// Lines: "JOB <id>", "OBJECTS <rank> <count>", "CRASH_AT <unix ms>", "READY <rank>".
#include <GASPI.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>

namespace {

void check(gaspi_return_t rc, const char *what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "shm_hold: %s failed: %d\n", what, static_cast<int>(rc));
    std::exit(1);
  }
}

int count_objects(const std::string &prefix) {
  int n = 0;
  if (DIR *dir = opendir("/dev/shm")) {
    while (dirent *e = readdir(dir))
      n += std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0 ? 1 : 0;
    closedir(dir);
  }
  return n;
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "crash" && mode != "hang") {
    std::fprintf(stderr, "usage: %s crash|hang\n", argv[0]);
    return 2;
  }
  check(gaspi_proc_init(GASPI_BLOCK), "gaspi_proc_init");
  gaspi_rank_t me = 0, n = 0;
  check(gaspi_proc_rank(&me), "gaspi_proc_rank");
  check(gaspi_proc_num(&n), "gaspi_proc_num");
  check(gaspi_segment_create(0, 1 << 20, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment 0");
  check(gaspi_segment_create(1, 4 << 20, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_UNINITIALIZED), "segment 1");
  check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "gaspi_barrier");
  const char *job = std::getenv("HYGASPI_JOB");
  const std::string prefix = std::string("hygaspi-") + (job ? job : "?") + "-";
  std::printf("JOB %s\nOBJECTS %u %d\n", job ? job : "?", me, count_objects(prefix));
  std::fflush(stdout);
  check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "gaspi_barrier");
  if (mode == "crash") {
    if (me == (n > 1 ? 1 : 0)) {
      const auto now = std::chrono::system_clock::now().time_since_epoch();
      std::printf("CRASH_AT %lld\n",
                  static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()));
      std::fflush(stdout);
      raise(SIGKILL);
    }
    gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK); // returns GASPI_ERROR once the launcher marks the crash
    for (;;)
      gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK);
  }
  std::printf("READY %u\n", me);
  std::fflush(stdout);
  gaspi_notification_id_t id = 0;
  gaspi_notify_waitsome(0, 0, 1, &id, GASPI_BLOCK);
  return 1;
}
