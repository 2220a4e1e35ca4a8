// Rank program of tests/lifecycle/lifecycle.sh (failed init, child).
//   failinit: rank 1 makes its own gaspi_proc_init fail part-way (RLIMIT_FSIZE below the size of
//             its rank block: the shm object cannot be sized) and then exits 0; every other rank
//             prints "INIT <rank> <return code> <ms>" and exits 0 too.
//   child:    after init, rank 0 runs this program again with system() as "solo"; the child
//             inherits HYGASPI_JOB/RANK/NRANKS and must run as a standalone 1-rank job. Then the
//             job goes on (barrier, term) and rank 0 prints "SUCCESS lc_prog".
//   solo:     expects a 1-rank job of its own; prints "SOLO_OK".
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
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
  if (mode == "solo") {
    gaspi_rank_t me = 0, n = 0;
    mr_init(me, n);
    MR_CHECK(me == 0 && n == 1);
    MR_OK(gaspi_proc_term(GASPI_BLOCK));
    std::printf("SOLO_OK\n");
    return 0;
  }
  if (mode != "child") {
    std::fprintf(stderr, "usage: %s failinit|child|solo\n", argv[0]);
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
