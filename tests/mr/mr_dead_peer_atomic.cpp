// A node peer dies while this rank only fetch-adds to it, a call that never waits: under mpirun,
// where no launcher marks the death, the call must still fail (GASPI_ERROR) soon after.
//
// 4 ranks as 2 nodes of 2 (mpirun --enable-recovery, HYGASPI_NODE_SIZE=2). Rank 2 kills rank 1;
// rank 0, rank 1's node peer, fetch-adds to rank 1 in a loop until a call fails, for at most 10 s.
// A fetch_add on a node is a CPU atomic on the peer's mapped segment, which outlives the process,
// and it looks only at the job block's mark of the peer. The MPI progress thread now looks at the
// node peers' processes every 10 ms and marks the dead; before, every call succeeded until a wait
// of this rank did, and the loop ran out.
// The survivors _Exit(0): under mpirun, MPI_Win_free and MPI_Finalize need the dead rank.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "mr_util.hpp"

namespace {
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_timeout_t kTimeout = 20000; // ms
} // namespace

int main() {
  gaspi_rank_t me = 0;
  mr_init_two_nodes_of_two(me, kSeg);
  if (me == 1)
    mr_die_when_killed(kSeg);
  if (me == 2)
    MR_OK(gaspi_proc_kill(1, kTimeout));
  if (me == 0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    gaspi_return_t rc = GASPI_SUCCESS;
    long calls = 0;
    while (rc == GASPI_SUCCESS && std::chrono::steady_clock::now() < end) {
      gaspi_atomic_value_t old = 0;
      rc = gaspi_atomic_fetch_add(kSeg, 0, 1, 1, &old, GASPI_BLOCK);
      ++calls;
    }
    std::printf("rank 0: fetch_add to the dead rank 1 returned %d after %ld calls\n", (int)rc, calls);
    MR_CHECK(rc == GASPI_ERROR);
    std::printf("SUCCESS mr_dead_peer_atomic\n");
  }
  std::fflush(stdout);
  std::_Exit(0);
}
