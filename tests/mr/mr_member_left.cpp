// A member of GASPI_GROUP_ALL ends its session (gaspi_proc_term) while the others enter a barrier
// and an allreduce with GASPI_BLOCK: they must fail (GASPI_ERROR), not wait forever, whether they
// entered before or after it left. A terminated rank never takes part again: a rank that starts
// anew commits its groups anew.
//
// Rank 1 leaves. Every other rank must share its node (shm, or the hybrid path's nodes of 2 with
// 4 ranks: rank 1 is then not its node's leader, and rank 0, whose node phase waits for rank 1,
// tells the other node's leader). Across nodes a leaving rank is not noticed: its gaspi_proc_term
// waits in MPI's collective end of the one-sided windows for the others (docs/DESIGN.md).
#include "mr_util.hpp"

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_CHECK(n >= 2);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (me == 1) {
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
