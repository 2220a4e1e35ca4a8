// A node's leader dies while the others wait in a barrier across nodes: every survivor's barrier
// must fail (GASPI_ERROR), not wait forever.
//
// 4 ranks as 2 nodes of 2 (mpirun --enable-recovery, HYGASPI_NODE_SIZE=2). Rank 3 kills rank 0,
// the leader of node 0, while ranks 1-3 enter a barrier. Rank 1, rank 0's node peer, sees the death
// through its health check; rank 2, node 1's leader, waits over MPI for rank 0's messages and learns
// of it only from rank 1, which tells the other leaders in its dead leader's place. Before, only
// rank 1's barrier failed, and ranks 2 and 3 waited until the launcher's timeout.
// The survivors _Exit(0): under mpirun, MPI_Win_free and MPI_Finalize need the dead rank.
#include <cstdio>
#include <cstdlib>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_timeout_t kTimeout = 20000; // ms
constexpr gaspi_notification_id_t kDone = 8;

} // namespace

int main() {
  gaspi_rank_t me = 0;
  mr_init_two_nodes_of_two(me, kSeg);
  if (me == 0)
    mr_die_when_killed(kSeg);
  if (me == 3)
    MR_OK(gaspi_proc_kill(0, kTimeout));
  MR_EXPECT(GASPI_ERROR, gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  std::printf("rank %u: barrier -> GASPI_ERROR\n", me);
  if (me != 3) {
    MR_OK(gaspi_notify(kSeg, 3, static_cast<gaspi_notification_id_t>(kDone + me), 1, 0, kTimeout));
    MR_OK(gaspi_wait(0, kTimeout));
  } else {
    for (gaspi_rank_t r = 1; r < 3; ++r) {
      gaspi_notification_id_t got = 0;
      gaspi_notification_t value = 0;
      MR_OK(gaspi_notify_waitsome(kSeg, static_cast<gaspi_notification_id_t>(kDone + r), 1, &got, kTimeout));
      MR_OK(gaspi_notify_reset(kSeg, got, &value));
      MR_CHECK(value == 1);
    }
    std::printf("SUCCESS mr_leader_killed\n");
  }
  std::fflush(stdout);
  std::_Exit(0);
}
