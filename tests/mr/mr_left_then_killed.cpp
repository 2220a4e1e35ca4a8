// A member dies after it gave a barrier all it owes; the members still inside must complete it
// (CI's hybrid.mr_ranks_kill.n32: rank 1 was killed after it had arrived, and its leader's
// barrier failed, and with it every other node's through the leaders' abort notice).
//
//   mr_left_then_killed node     4 ranks on one node (hygaspi-run, or mpirun with
//                                HYGASPI_NODE_SIZE=4). The node barrier is a dissemination over 2
//                                rounds: member i signals i+1, then i+2. Rank 0 makes one step
//                                (GASPI_TEST): its round-0 signal to rank 1 is out, and it waits
//                                for rank 3's. Then ranks 1-3 enter. Rank 3 completes (rounds from
//                                2 and 1) and is killed; rank 2 still waits for rank 0's round-1
//                                signal. Rank 0 resumes and everyone completes.
//   mr_left_then_killed leader   4 ranks as 2 nodes of 2 (mpirun, HYGASPI_NODE_SIZE=2). Rank 1 makes
//                                one step after rank 0's: it arrives, signals its release and is
//                                killed, while rank 0 waits in the leaders' phase (over MPI) for
//                                rank 2, which enters only after the kill.
// In both, the killer waits 200 ms after the kill before the barrier can complete: not to
// synchronise (the test's outcome does not depend on it), but so that the waiting members look
// at the dead rank's health before then, which failed their barrier before the fix.
// Each survivor's barrier must return GASPI_SUCCESS; rank 0 then prints the SUCCESS line. The
// survivors _Exit(0): under mpirun, MPI_Finalize cannot complete without the dead rank.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_timeout_t kTimeout = 20000; // ms
constexpr gaspi_notification_id_t kGo = 0, kLeft = 1, kDone = 8;

void wait_notification(gaspi_notification_id_t id) {
  gaspi_notification_id_t got = 0;
  gaspi_notification_t value = 0;
  MR_OK(gaspi_notify_waitsome(kSeg, id, 1, &got, kTimeout));
  MR_OK(gaspi_notify_reset(kSeg, got, &value));
  MR_CHECK(value == 1);
}

void notify(gaspi_rank_t to, gaspi_notification_id_t id) {
  MR_OK(gaspi_notify(kSeg, to, id, 1, 0, kTimeout));
  MR_OK(gaspi_wait(0, kTimeout));
}

void kill_and_lag(gaspi_rank_t victim) {
  MR_OK(gaspi_proc_kill(victim, kTimeout));
  std::this_thread::sleep_for(std::chrono::milliseconds(200)); // see the header: not a synchronisation
}

} // namespace

int main(int argc, char **argv) {
  const bool node_mode = argc > 1 && std::strcmp(argv[1], "node") == 0;
  const bool leader_mode = argc > 1 && std::strcmp(argv[1], "leader") == 0;
  if (!node_mode && !leader_mode) {
    std::fprintf(stderr, "usage: %s node|leader\n", argv[0]);
    return 2;
  }
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_CHECK(n == 4);
  gaspi_rank_t local_num = 0;
  MR_OK(gaspi_proc_local_num(&local_num));
  MR_CHECK(local_num == (node_mode ? 4 : 2));
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  const gaspi_rank_t victim = node_mode ? 3 : 1;
  const gaspi_rank_t killer = node_mode ? 0 : 2;
  if (node_mode) {
    if (me == 0) {
      MR_EXPECT(GASPI_TIMEOUT, gaspi_barrier(GASPI_GROUP_ALL, GASPI_TEST)); // rank 3 has not entered
      for (gaspi_rank_t r = 1; r < n; ++r)
        notify(r, kGo);
      wait_notification(kLeft);
      kill_and_lag(victim);
    } else {
      wait_notification(kGo);
    }
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    if (me == victim) {
      notify(killer, kLeft);
      mr_die_when_killed(kSeg);
    }
  } else {
    if (me == 0) {
      MR_EXPECT(GASPI_TIMEOUT, gaspi_barrier(GASPI_GROUP_ALL, GASPI_TEST)); // rank 1 has not entered
      notify(1, kGo);
      MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    } else if (me == victim) {
      wait_notification(kGo);
      // Arrives (rank 0's signal is there) and signals its release, then waits for rank 0's.
      MR_EXPECT(GASPI_TIMEOUT, gaspi_barrier(GASPI_GROUP_ALL, GASPI_TEST));
      notify(killer, kLeft);
      mr_die_when_killed(kSeg);
    } else {
      if (me == killer) {
        wait_notification(kLeft);
        kill_and_lag(victim);
      }
      MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    }
  }
  std::printf("rank %u: barrier -> GASPI_SUCCESS\n", me);
  if (me != 0) {
    notify(0, static_cast<gaspi_notification_id_t>(kDone + me));
  } else {
    for (gaspi_rank_t r = 1; r < n; ++r)
      if (r != victim)
        wait_notification(static_cast<gaspi_notification_id_t>(kDone + r));
    std::printf("SUCCESS mr_left_then_killed\n");
  }
  std::fflush(stdout);
  // Under hygaspi-run the survivors end cleanly (a rank that exits without term fails the job).
  // Under mpirun they cannot: MPI_Win_free and MPI_Finalize need the dead rank.
  if (std::getenv("HYGASPI_JOB") != nullptr) {
    MR_OK(gaspi_proc_term(GASPI_BLOCK));
    return 0;
  }
  std::_Exit(0);
}
