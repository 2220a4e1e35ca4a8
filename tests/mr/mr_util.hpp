// Helpers for SPMD tests run under a launcher: every failed check names the rank, file and line,
// and ends the process with a non-zero code, so the launcher kills the job and the test fails.
#pragma once
#include <GASPI.h>
#include <GASPI_Ext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mr {

inline gaspi_rank_t g_rank = 0;

[[noreturn]] inline void fail(const char *file, int line, const char *what) {
  std::fprintf(stderr, "FAIL rank %u %s:%d: %s\n", g_rank, file, line, what);
  std::fflush(stderr);
  std::_Exit(1);
}

} // namespace mr

#define MR_CHECK(cond)                                                                                                 \
  do {                                                                                                                 \
    if (!(cond))                                                                                                       \
      ::mr::fail(__FILE__, __LINE__, #cond);                                                                           \
  } while (0)

// Expects a specific return code from a GASPI call.
#define MR_EXPECT(expected, call)                                                                                      \
  do {                                                                                                                 \
    gaspi_return_t mr_rc_ = (call);                                                                                    \
    if (mr_rc_ != (expected)) {                                                                                        \
      char mr_msg_[512];                                                                                               \
      std::snprintf(mr_msg_, sizeof mr_msg_, "%s returned %d (%s), expected %d", #call, (int)mr_rc_,                   \
                    gaspi_error_str(mr_rc_), (int)(expected));                                                         \
      ::mr::fail(__FILE__, __LINE__, mr_msg_);                                                                         \
    }                                                                                                                  \
  } while (0)

#define MR_OK(call) MR_EXPECT(GASPI_SUCCESS, call)

// Initialises GASPI and records the rank for messages.
inline void mr_init(gaspi_rank_t &rank, gaspi_rank_t &nranks) {
  MR_OK(gaspi_proc_init(GASPI_BLOCK));
  MR_OK(gaspi_proc_rank(&rank));
  MR_OK(gaspi_proc_num(&nranks));
  mr::g_rank = rank;
}

// One line per test program, printed by rank 0 after the final barrier.
inline void mr_finish(const char *name) {
  gaspi_rank_t rank = 0;
  MR_OK(gaspi_proc_rank(&rank));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  if (rank == 0)
    std::printf("SUCCESS %s\n", name);
}

// The start of the tests where a rank dies under mpirun --enable-recovery: 4 ranks as 2 nodes of 2,
// a 4 KiB segment `seg` on every rank, and a barrier.
inline void mr_init_two_nodes_of_two(gaspi_rank_t &rank, gaspi_segment_id_t seg) {
  gaspi_rank_t nranks = 0, local_num = 0;
  mr_init(rank, nranks);
  MR_CHECK(nranks == 4);
  MR_OK(gaspi_proc_local_num(&local_num));
  MR_CHECK(local_num == 2);
  MR_OK(gaspi_segment_create(seg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
}

// Waits for a notification of `seg` that nobody sends, until another rank's gaspi_proc_kill ends
// this rank here; fails if the wait returns.
[[noreturn]] inline void mr_die_when_killed(gaspi_segment_id_t seg) {
  gaspi_notification_id_t id = 0;
  const gaspi_return_t rc = gaspi_notify_waitsome(seg, 7, 1, &id, GASPI_BLOCK);
  std::fprintf(stderr, "FAIL rank %u: still alive, gaspi_notify_waitsome returned %d\n", mr::g_rank, (int)rc);
  std::_Exit(1);
}
