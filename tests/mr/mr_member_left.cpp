// A member of GASPI_GROUP_ALL ends its session (gaspi_proc_term) while the others enter a barrier
// and an allreduce with GASPI_BLOCK: they must fail (GASPI_ERROR), not wait forever, whether they
// entered before or after it left. A terminated rank never takes part again: a rank that starts
// anew commits its groups anew.
//
// Which rank leaves: rank 1, or with the argument "half" rank n / 2.
//  - On one node (shm), the leaver's node peers see it terminated (shm::gone_members).
//  - Rank 1 on the hybrid path (nodes of 2, 4 ranks) is not its node's leader: rank 0, whose node
//    phase waits for it, fails and tells the other node's leader (an abort notice).
//  - Rank n / 2 across nodes (mpi:2, mpi:4, hybrid:4) leads its node: its gaspi_proc_term tells
//    the other leaders how many collectives it completed (mpi::leader_departs), and theirs fail.
//    Before, they waited forever, and so did the leaver, in MPI's collective end of the one-sided
//    windows.
#include <cstring>

#include "mr_util.hpp"

int main(int argc, char **argv) {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_CHECK(n >= 2);
  const gaspi_rank_t leaver = argc > 1 && std::strcmp(argv[1], "half") == 0 ? n / 2 : 1;
  // Two completed collectives of each kind first: the others must not fail those that the leaver
  // completed.
  for (int i = 0; i < 2; ++i) {
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    double one = 1, sum = 0;
    MR_OK(gaspi_allreduce(&one, &sum, 1, GASPI_OP_SUM, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK));
    MR_CHECK(sum == n);
  }
  if (me == leaver) {
    MR_OK(gaspi_proc_term(GASPI_BLOCK));
    return 0;
  }
  MR_EXPECT(GASPI_ERROR, gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  double one = 1, sum = 0;
  MR_EXPECT(GASPI_ERROR, gaspi_allreduce(&one, &sum, 1, GASPI_OP_SUM, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_CHECK(sum == 0); // nothing written
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  if (me == 0)
    std::printf("SUCCESS mr_member_left\n");
  return 0;
}
