// gaspi_proc_term honours its timeout after a rank died, across nodes (mpirun --enable-recovery,
// 4 ranks as nodes of 1). Rank 0 kills rank 3; the survivors run a barrier of their own group, then
// call gaspi_proc_term(2000). Their term ends MPI's one-sided windows, whose collective
// MPI_Win_free waits for every rank, the dead one too: each first waits for every rank to reach its
// term (a non-blocking barrier), and fails once it knows of a death. Rank 0 killed rank 3, and told
// ranks 1 and 2 (bridge/failures.hpp): every survivor fails at once (GASPI_ERROR). Before, every
// survivor waited forever in MPI_Win_free; later, ranks 1 and 2, which knew nothing of the death,
// returned GASPI_TIMEOUT at their deadline.
// The survivors _Exit(0): MPI_Finalize cannot complete without the dead rank.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "mr_util.hpp"

namespace {
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_timeout_t kTimeout = 20000; // ms
} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_CHECK(n == 4);
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (me == 3)
    mr_die_when_killed(kSeg);
  if (me == 0)
    MR_OK(gaspi_proc_kill(3, kTimeout));
  gaspi_group_t survivors = 0;
  MR_OK(gaspi_group_create(&survivors));
  for (gaspi_rank_t r = 0; r < 3; ++r)
    MR_OK(gaspi_group_add(survivors, r));
  MR_OK(gaspi_group_commit(survivors, kTimeout));
  MR_OK(gaspi_barrier(survivors, kTimeout));
  const auto t0 = std::chrono::steady_clock::now();
  const gaspi_return_t rc = gaspi_proc_term(2000);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rank %u: gaspi_proc_term(2000) -> %d after %.2f s\n", me, (int)rc, s);
  MR_CHECK(rc == GASPI_ERROR);
  MR_CHECK(s < 1.5); // within the deadline: the news, not the timeout, ended it
  if (me == 0)
    std::printf("SUCCESS mr_term_after_death\n");
  std::fflush(stdout);
  std::_Exit(0);
}
