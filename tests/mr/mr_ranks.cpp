// Global ranks and node-local indices, at 32 ranks on virtual nodes.
//
//   mr_ranks            every rank's state vector is all HEALTHY (it segfaulted at 31+ ranks with
//                       one rank per node), and the node-local rank and size match the node split
//   mr_ranks kill       the same, then rank 2 gaspi_proc_kills rank 1 (a node peer under
//                       hygaspi-run, another node under HYGASPI_NODE_SIZE=1 or 2, where it once
//                       killed rank 3) once rank 1 has told it that it left the barrier. Every
//                       other rank reports to rank 0 that it is still alive, rank 2's state vector
//                       shows rank 1 CORRUPT and no other, and then the survivors _exit(0):
//                       MPI_Finalize cannot complete without rank 1, so this mode runs under
//                       mpirun --enable-recovery (docs/mpi-failures.md).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_rank_t kVictim = 1, kKiller = 2;
constexpr gaspi_timeout_t kTimeout = 20000; // ms; well inside the mpirun timeout, so a stuck rank is named

void expect_states(gaspi_rank_t n, gaspi_rank_t dead) {
  // Filled with the opposite of what is expected, so that an entry left unwritten fails too.
  std::vector<gaspi_state_t> states(n);
  for (gaspi_rank_t r = 0; r < n; ++r)
    states[r] = r == dead ? GASPI_STATE_HEALTHY : GASPI_STATE_CORRUPT;
  MR_OK(gaspi_state_vec_get(states.data()));
  for (gaspi_rank_t r = 0; r < n; ++r)
    MR_CHECK(states[r] == (r == dead ? GASPI_STATE_CORRUPT : GASPI_STATE_HEALTHY));
}

} // namespace

int main(int argc, char **argv) {
  const bool kill_mode = argc > 1 && std::strcmp(argv[1], "kill") == 0;
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  expect_states(n, n); // nobody dead

  // Node-local numbering: HYGASPI_NODE_SIZE=k makes nodes of k consecutive ranks under mpirun;
  // without it mpirun's own placement counts (its OMPI_COMM_WORLD_LOCAL_* variables: real hosts,
  // as in scripts/multihost.sh); hygaspi-run makes one node of all.
  const char *node_size_env = std::getenv("HYGASPI_NODE_SIZE");
  const char *mpi_local_rank = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const char *mpi_local_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int k = node_size_env != nullptr ? std::atoi(node_size_env) : 0;
  gaspi_rank_t expect_rank = me, expect_num = n;
  if (std::getenv("OMPI_COMM_WORLD_RANK") != nullptr && k > 0) {
    expect_rank = static_cast<gaspi_rank_t>(me % k);
    expect_num = static_cast<gaspi_rank_t>(me / k == (n - 1) / k ? n - (n - 1) / k * k : k);
  } else if (mpi_local_rank != nullptr && mpi_local_size != nullptr) {
    expect_rank = static_cast<gaspi_rank_t>(std::atoi(mpi_local_rank));
    expect_num = static_cast<gaspi_rank_t>(std::atoi(mpi_local_size));
  }
  gaspi_rank_t local_rank = 0, local_num = 0;
  MR_OK(gaspi_proc_local_rank(&local_rank));
  MR_OK(gaspi_proc_local_num(&local_num));
  MR_CHECK(local_rank == expect_rank);
  MR_CHECK(local_num == expect_num);

  if (!kill_mode) {
    mr_finish("mr_ranks");
    return 0;
  }
  MR_CHECK(n >= 4);
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  // The kill waits until the victim has left the barrier: a barrier promises that everyone has
  // arrived, not that everyone has left, and a rank killed inside it may fail the barrier of its
  // node's leader (CI saw exactly that once: rank 0 "node rank 1 of the group died").
  if (me == kVictim) {
    MR_OK(gaspi_notify(kSeg, kKiller, kVictim, 1, 0, kTimeout));
    MR_OK(gaspi_wait(0, kTimeout));
    // Waits inside GASPI, as a rank does in its communication phases: a rank of another node is
    // killed when it next makes progress. Nobody ever sends this notification.
    gaspi_notification_id_t id = 0;
    gaspi_return_t rc = gaspi_notify_waitsome(kSeg, 0, 1, &id, GASPI_BLOCK);
    std::fprintf(stderr, "FAIL rank %u: still alive, gaspi_notify_waitsome returned %d\n", me, (int)rc);
    std::_Exit(1);
  }
  if (me == kKiller) {
    gaspi_notification_id_t left = 0;
    MR_OK(gaspi_notify_waitsome(kSeg, kVictim, 1, &left, kTimeout));
    const auto t0 = std::chrono::steady_clock::now();
    MR_OK(gaspi_proc_kill(kVictim, kTimeout));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("rank %u: gaspi_proc_kill(%u) -> GASPI_SUCCESS in %.1f ms\n", me, kVictim, ms);
    expect_states(n, kVictim); // what this rank knows: it killed rank 1
    // A second kill of a rank known dead is an error, and kills nobody else.
    MR_EXPECT(GASPI_ERROR, gaspi_proc_kill(kVictim, kTimeout));
    // A write to the dead rank (on another node under mpirun) is accepted; its wait fails, once.
    MR_OK(gaspi_write(kSeg, 0, kVictim, kSeg, 0, 8, 0, kTimeout));
    MR_EXPECT(GASPI_ERROR, gaspi_wait(0, kTimeout));
    MR_OK(gaspi_wait(0, kTimeout));
  }
  if (me != 0) {
    // Every survivor tells rank 0 that it lives after the kill (notification id = its rank). The
    // killer does so after its kill returned, so rank 0 has all n - 2 only if the right one died.
    MR_OK(gaspi_notify(kSeg, 0, me, 1, 0, kTimeout));
    MR_OK(gaspi_wait(0, kTimeout));
    // No survivor leaves before rank 0 has heard from all: a rank that ends without
    // gaspi_proc_term is a death, and the killer's node peers would see it in their state vector.
    gaspi_notification_id_t id = 0;
    MR_OK(gaspi_notify_waitsome(kSeg, 0, 1, &id, kTimeout));
  } else {
    for (gaspi_rank_t r = 2; r < n; ++r) {
      gaspi_notification_id_t id = 0;
      gaspi_notification_t value = 0;
      MR_OK(gaspi_notify_waitsome(kSeg, r, 1, &id, kTimeout));
      MR_OK(gaspi_notify_reset(kSeg, id, &value));
      MR_CHECK(value == 1);
    }
    for (gaspi_rank_t r = 2; r < n; ++r)
      MR_OK(gaspi_notify(kSeg, r, 0, 1, 0, kTimeout));
    MR_OK(gaspi_wait(0, kTimeout));
    std::printf("SUCCESS mr_ranks_kill\n");
  }
  std::fflush(stdout);
  std::_Exit(0); // no gaspi_proc_term: its collective teardown would wait for rank 1 forever
}
