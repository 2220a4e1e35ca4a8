// Rank program of tests/lifecycle/lifecycle.sh (failed init, child).
//   failinit: rank 1 makes its own gaspi_proc_init fail part-way (RLIMIT_FSIZE below the size of
//             its rank block: the shm object cannot be sized) and then exits 0; every other rank
//             prints "INIT <rank> <return code> <ms>" and exits 0 too.
//   child:    after init, rank 0 runs this program again with system() as "solo"; the child
//             inherits HYGASPI_JOB/RANK/NRANKS and must run as a standalone 1-rank job. Then the
//             job goes on (barrier, term) and rank 0 prints "SUCCESS lc_prog".
//   solo:     expects a 1-rank job of its own; prints "SOLO_OK".
//   dieininit DIR: 4 ranks under hygaspi-run --keep-going. Rank 0 is killed inside its
//             gaspi_proc_init, once its rank block exists (it then waits there for rank 3), while
//             ranks 1 and 2 wait there for rank 3 too; rank 3 starts its init only after they have
//             printed "INIT <rank> <return code> <ms>" (a file DIR/init.<rank> each). Ranks 1 and 2
//             must fail at once, naming rank 0. The delay before the kill only makes it land after
//             rank 0 is ready (a kill before that fails them too, as a rank that never started).
#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <sys/wait.h>
#include <vector>

#include "../mr/mr_util.hpp"

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "failinit") {
    const char *rank = std::getenv("HYGASPI_RANK");
    const char *ompi = std::getenv("OMPI_COMM_WORLD_RANK");
    const int me = std::atoi(rank != nullptr ? rank : ompi != nullptr ? ompi : "0");
    if (me == 1) {
      std::signal(SIGXFSZ, SIG_IGN); // the limit then fails ftruncate/fallocate with EFBIG
      rlimit limit{4096, 4096};
      MR_CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const gaspi_return_t rc = gaspi_proc_init(GASPI_BLOCK);
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("INIT %d %d %.1f\n", me, static_cast<int>(rc), ms);
    return 0;
  }
  if (mode == "dieininit" && argc > 2) {
    const std::string dir = argv[2];
    const int me = std::atoi(std::getenv("HYGASPI_RANK") != nullptr ? std::getenv("HYGASPI_RANK") : "0");
    auto exists = [](const std::string &path) { return std::ifstream(path).good(); };
    if (me == 0) {
      std::thread([] {
        const std::string mine = "-p" + std::to_string(getpid());
        for (bool found = false; !found; std::this_thread::sleep_for(std::chrono::milliseconds(1))) {
          DIR *d = opendir("/dev/shm");
          for (dirent *e = d != nullptr ? readdir(d) : nullptr; e != nullptr && !found; e = readdir(d)) {
            const std::string name = e->d_name;
            found = name.rfind("hygaspi-", 0) == 0 && name.size() > mine.size() &&
                    name.compare(name.size() - mine.size(), mine.size(), mine) == 0;
          }
          if (d != nullptr)
            closedir(d);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::raise(SIGKILL);
      }).detach();
    }
    if (me == 3) // after ranks 1 and 2 reported, or after 30 s (the check then fails on their times)
      for (int i = 0; i < 30000 && !(exists(dir + "/init.1") && exists(dir + "/init.2")); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto t0 = std::chrono::steady_clock::now();
    const gaspi_return_t rc = gaspi_proc_init(GASPI_BLOCK);
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("INIT %d %d %.1f\n", me, static_cast<int>(rc), ms);
    std::fflush(stdout);
    std::ofstream(dir + "/init." + std::to_string(me)) << rc << '\n';
    return 0;
  }
  if (mode == "solo") {
    gaspi_rank_t me = 0, n = 0;
    mr_init(me, n);
    MR_CHECK(me == 0 && n == 1);
    MR_OK(gaspi_proc_term(GASPI_BLOCK));
    std::printf("SOLO_OK\n");
    return 0;
  }
  if (mode != "child") {
    std::fprintf(stderr, "usage: %s failinit|child|solo|dieininit DIR\n", argv[0]);
    return 2;
  }
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (me == 0) {
    std::fflush(stdout);
    const std::string command = std::string(argv[0]) + " solo";
    const int status = std::system(command.c_str());
    MR_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // The job is intact: every rank is healthy and a collective still works.
  std::vector<gaspi_state_t> states(n);
  MR_OK(gaspi_state_vec_get(states.data()));
  for (auto s : states)
    MR_CHECK(s == GASPI_STATE_HEALTHY);
  mr_finish("lc_prog");
  return 0;
}
