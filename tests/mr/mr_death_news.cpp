// A death becomes known on other nodes (mpirun --enable-recovery, 4 ranks), where Open MPI reports
// nothing to the survivors:
//  - `witness`, 2 nodes of 2: rank 1 dies by SIGKILL, unannounced. Only its node peer, rank 0,
//    can see it (its process is gone); rank 0 tells ranks 2 and 3.
//  - `killer`, 4 nodes of 1: rank 0 kills rank 1 with gaspi_proc_kill, and tells ranks 2 and 3.
//  - `exit`, 4 nodes of 1: rank 1 calls exit(3) without gaspi_proc_term; its exit handler tells the
//    others, since no node peer is left to see it.
//  - `unseen`, 4 nodes of 1: rank 1 dies by SIGKILL. No node peer sees it and it tells nobody: its
//    watcher in the ring of TCP connections (mpi_rma/ring_watch.hpp), rank 0, sees its connection
//    close, and tells ranks 2 and 3.
//  - `node`, 2 nodes of 2: ranks 2 and 3, the whole second node, die by SIGKILL. Rank 1 watches
//    rank 2 and tells rank 0; rank 1 then watches rank 3, finds its process gone too, and tells
//    rank 0 again.
// Every survivor then:
//  1. waits in gaspi_notify_waitsome(GASPI_BLOCK) for a notification nobody sends: GASPI_ERROR,
//     since a death in the job is unacknowledged (a wait that any rank could end);
//  2. reads the state vector: the dead corrupt, the others healthy (with `node`, it first waits
//     until both deaths are known);
//  3. waits again for 100 ms: GASPI_TIMEOUT, since the state vector acknowledged the deaths;
//  4. enters a barrier of all ranks with GASPI_BLOCK: GASPI_ERROR, since a dead rank is in it;
//  5. calls gaspi_proc_term(GASPI_BLOCK): GASPI_ERROR at once, since the collective end of MPI's
//     windows cannot complete without rank 1.
// Before, ranks 2 and 3 (and rank 0 after its kill) waited forever in step 1, and in step 5; and
// where rank 1 led a node of its own (`killer`, `exit`), every survivor waited forever in step 4.
// Before the ring, every survivor of `unseen` and `node` waited forever in step 1.
// The survivors _Exit(0): MPI_Finalize needs the dead rank.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mr_util.hpp"

namespace {
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_timeout_t kTimeout = 20000; // ms

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

int main(int argc, char **argv) {
  MR_CHECK(argc == 2);
  const std::string scene = argv[1];
  MR_CHECK(scene == "witness" || scene == "killer" || scene == "exit" || scene == "unseen" || scene == "node");
  const bool witness = scene == "witness";
  const bool whole_node = scene == "node";
  auto victim = [&](gaspi_rank_t r) { return whole_node ? r >= 2 : r == 1; };
  gaspi_rank_t me = 0, n = 0, local = 0;
  mr_init(me, n);
  MR_CHECK(n == 4);
  MR_OK(gaspi_proc_local_num(&local));
  MR_CHECK(local == (witness || whole_node ? 2 : 1));
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (victim(me)) {
    if (witness || scene == "unseen" || whole_node)
      std::raise(SIGKILL);
    if (scene == "exit")
      std::exit(3);
    mr_die_when_killed(kSeg);
  }
  if (me == 0 && scene == "killer")
    MR_OK(gaspi_proc_kill(1, kTimeout));

  auto t0 = std::chrono::steady_clock::now();
  gaspi_notification_id_t id = 0;
  MR_EXPECT(GASPI_ERROR, gaspi_notify_waitsome(kSeg, 7, 1, &id, GASPI_BLOCK));
  std::printf("rank %u: notify_waitsome(GASPI_BLOCK) -> GASPI_ERROR after %.2f s\n", me, seconds_since(t0));

  gaspi_state_t states[4];
  MR_OK(gaspi_state_vec_get(states));
  // `node`: the first death known fails the wait; the second follows within the ring's next looks.
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
       whole_node && states[2] + states[3] != 2 * GASPI_STATE_CORRUPT && std::chrono::steady_clock::now() < until;) {
    MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kSeg, 7, 1, &id, 10));
    MR_OK(gaspi_state_vec_get(states));
  }
  for (gaspi_rank_t r = 0; r < n; ++r)
    MR_CHECK(states[r] == (victim(r) ? GASPI_STATE_CORRUPT : GASPI_STATE_HEALTHY));
  MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kSeg, 7, 1, &id, 100));
  t0 = std::chrono::steady_clock::now();
  MR_EXPECT(GASPI_ERROR, gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  std::printf("rank %u: barrier(GASPI_BLOCK) -> GASPI_ERROR after %.2f s\n", me, seconds_since(t0));

  t0 = std::chrono::steady_clock::now();
  MR_EXPECT(GASPI_ERROR, gaspi_proc_term(GASPI_BLOCK));
  const double s = seconds_since(t0);
  std::printf("rank %u: gaspi_proc_term(GASPI_BLOCK) -> GASPI_ERROR after %.2f s\n", me, s);
  MR_CHECK(s < 10);
  if (me == 0)
    std::printf("SUCCESS mr_death_news\n");
  std::fflush(stdout);
  std::_Exit(0);
}
