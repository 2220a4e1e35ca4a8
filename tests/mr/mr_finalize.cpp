// MPI_Finalize before gaspi_proc_term: the program starts MPI, uses GASPI
// (segment, write+notify, allreduce), and then calls MPI_Finalize while GASPI is still up. The
// GASPI teardown runs inside MPI_Finalize; the later gaspi_proc_term returns GASPI_SUCCESS, and a
// second one GASPI_ERR_NOINIT, as after any gaspi_proc_term. Run under mpirun only.
#include <mpi.h>

#include "mr_util.hpp"

int main(int argc, char **argv) {
  int provided = 0;
  MR_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) == MPI_SUCCESS);
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_segment_create(0, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  long *seg = nullptr;
  MR_OK(gaspi_segment_ptr(0, reinterpret_cast<gaspi_pointer_t *>(&seg)));
  seg[1] = 100 + me;
  const auto to = static_cast<gaspi_rank_t>((me + 1) % n);
  const auto from = static_cast<gaspi_rank_t>((me + n - 1) % n);
  MR_OK(gaspi_write_notify(0, sizeof(long), to, 0, 0, sizeof(long), 0, 1, 0, GASPI_BLOCK));
  gaspi_notification_id_t id = 0;
  MR_OK(gaspi_notify_waitsome(0, 0, 1, &id, GASPI_BLOCK));
  MR_CHECK(seg[0] == 100 + from);
  long send = me, recv = 0;
  MR_OK(gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_CHECK(recv == static_cast<long>(n) * (n - 1) / 2);
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  MR_CHECK(MPI_Finalize() == MPI_SUCCESS); // GASPI is still up: the library tears it down here
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_proc_term(GASPI_BLOCK));
  gaspi_rank_t rank = 0;
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_proc_rank(&rank)); // torn down, not merely marked
  if (me == 0)
    std::printf("SUCCESS mr_finalize\n");
  return 0;
}
