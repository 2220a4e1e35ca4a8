// The shortest GASPI program: gaspi_proc_init, then gaspi_proc_term, nothing between.
// A rank that initialises and terminates at once must not make a slower peer's init fail.
// Rank 0 prints "SUCCESS mr_init_term". Repeated 50 times per rank count, pinned to one CPU, by
// tests/lifecycle/repeat.sh.
#include "mr_util.hpp"

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  if (me == 0)
    std::printf("SUCCESS mr_init_term\n");
  return 0;
}
