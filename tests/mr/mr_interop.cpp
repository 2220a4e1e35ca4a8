// MPI interoperability (spec §5.6, Listing 10): the program starts MPI itself, does MPI work, then
// GASPI and MPI phases alternate; GASPI rank = MPI rank; after gaspi_proc_term MPI still works,
// and MPI_Finalize is the program's job. Run under mpirun only.
#include <mpi.h>

#include "mr_util.hpp"

namespace {

void mpi_phase(int round, int mpi_rank, int mpi_size) {
  long mine = mpi_rank + round, sum = 0;
  MR_CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  MR_CHECK(sum == static_cast<long>(mpi_size) * (mpi_size - 1) / 2 + static_cast<long>(round) * mpi_size);
  MR_CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS); // Listing 10: finish all MPI communication
}

void gaspi_phase(int round, gaspi_rank_t me, gaspi_rank_t n) {
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + 1) % n);
  const gaspi_rank_t from = static_cast<gaspi_rank_t>((me + n - 1) % n);
  long *seg = nullptr;
  MR_OK(gaspi_segment_ptr(0, reinterpret_cast<gaspi_pointer_t *>(&seg)));
  seg[1] = 1000 * round + me;
  MR_OK(gaspi_write_notify(0, sizeof(long), to, 0, 0, sizeof(long), 0, round + 1, 0, GASPI_BLOCK));
  gaspi_notification_id_t id = 0;
  gaspi_notification_t val = 0;
  MR_OK(gaspi_notify_waitsome(0, 0, 1, &id, GASPI_BLOCK));
  MR_OK(gaspi_notify_reset(0, 0, &val));
  MR_CHECK(val == static_cast<gaspi_notification_t>(round + 1));
  MR_CHECK(seg[0] == 1000 * round + from);
  long send = me, recv = 0;
  MR_OK(gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_CHECK(recv == static_cast<long>(n) * (n - 1) / 2);
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // Listing 10: finish all GASPI communication
}

} // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MR_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) == MPI_SUCCESS);
  int mpi_rank = 0, mpi_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  mpi_phase(0, mpi_rank, mpi_size);

  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  // The thread level MPI granted stays the program's (an MPI_T_init_thread(MPI_THREAD_SINGLE) of
  // the library made Open MPI 4.1 report, and act on, SINGLE from then on).
  int level = -1;
  MR_CHECK(MPI_Query_thread(&level) == MPI_SUCCESS && level == provided);
  MR_CHECK(me == mpi_rank);
  MR_CHECK(n == mpi_size);
  MR_OK(gaspi_segment_create(0, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  for (int round = 1; round <= 3; ++round) {
    gaspi_phase(round, me, n);
    mpi_phase(round, mpi_rank, mpi_size);
  }
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  mpi_phase(4, mpi_rank, mpi_size); // MPI is still usable after gaspi_proc_term
  int finalized = 1;
  MPI_Finalized(&finalized);
  MR_CHECK(!finalized);
  MPI_Finalize();
  // MPI cannot start again: a GASPI start now is refused with an error, not an abort of MPI's.
  MR_EXPECT(GASPI_ERR_ENV, gaspi_proc_init(GASPI_BLOCK));
  if (mpi_rank == 0)
    std::printf("SUCCESS mr_interop\n");
  return 0;
}
