// The application starts MPI at MPI_THREAD_FUNNELED and then calls GASPI from a thread that did not
// start MPI, as a GPI-2 program that drives GASPI from its worker threads after a plain MPI_Init
// may. Across nodes such a call needs MPI, which FUNNELED forbids it: the library must say so
// (once, naming the rank and the call), and the call still works as before. Run by
// tests/fortran/expect_output.sh, which looks for the message.
#include <mpi.h>

#include <thread>

#include "mr_util.hpp"

int main(int argc, char **argv) {
  int provided = 0;
  MR_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS);
  MR_CHECK(provided >= MPI_THREAD_FUNNELED);
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_segment_create(0, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t base = nullptr;
  MR_OK(gaspi_segment_ptr(0, &base));
  auto *words = static_cast<volatile long *>(base);
  words[0] = 1000 + me;
  std::thread worker([&] {
    for (int i = 0; i < 3; ++i) {
      MR_OK(gaspi_write(0, 0, static_cast<gaspi_rank_t>((me + 1) % n), 0, 8, sizeof(long), 0, GASPI_BLOCK));
      MR_OK(gaspi_wait(0, GASPI_BLOCK));
    }
  });
  worker.join();
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_CHECK(words[1] == 1000 + (me + n - 1) % n);
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  MR_CHECK(MPI_Finalize() == MPI_SUCCESS);
  if (me == 0)
    std::printf("SUCCESS mr_funneled\n");
  return 0;
}
