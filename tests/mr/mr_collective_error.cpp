// A member that leaves a collective with an error must release the members still waiting on it
// (docs/DESIGN.md "Collectives and groups"), on every path: here no rank dies, but the user's reduce operation fails on
// the ranks that first combine rank n-1's contribution (on shm the node leader; over MPI rank n-1
// or its partner; on hybrid the leader of n-1's node), while the others wait with GASPI_BLOCK for
// a result that will never come. Every rank must get GASPI_ERROR. The group is then broken: its
// next barrier fails at once. A new group of the same ranks works.
#include <chrono>
#include <cstdio>

#include "mr_util.hpp"

namespace {
gaspi_rank_t me = 0, n = 0;
int g_failed = 0; // calls of the reduce operation that failed on this rank

// Bitwise OR of rank masks; fails when an operand is rank n-1's own contribution.
gaspi_return_t or_masks(gaspi_pointer_t op1, gaspi_pointer_t op2, gaspi_pointer_t res, gaspi_reduce_state_t,
                        const gaspi_number_t num, const gaspi_size_t element_size, const gaspi_timeout_t) {
  const auto *a = static_cast<const unsigned long *>(op1);
  const auto *b = static_cast<const unsigned long *>(op2);
  auto *r = static_cast<unsigned long *>(res);
  if (num != 1 || element_size != sizeof(unsigned long))
    return GASPI_ERROR;
  const unsigned long last = 1ul << (n - 1);
  if (*a == last || *b == last) {
    ++g_failed;
    return GASPI_ERROR;
  }
  *r = *a | *b;
  return GASPI_SUCCESS;
}
} // namespace

int main() {
  mr_init(me, n);
  if (n < 2 || n > 64) {
    mr_finish("mr_collective_error");
    return 0;
  }
  unsigned long in = 1ul << me, out = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const gaspi_return_t rc =
      gaspi_allreduce_user(&in, &out, 1, sizeof in, or_masks, nullptr, GASPI_GROUP_ALL, GASPI_BLOCK);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rank %u: failing gaspi_allreduce_user -> %s in %.1f ms (reduce operation failed here %d times)\n", me,
              gaspi_error_str(rc), ms, g_failed);
  std::fflush(stdout);
  MR_EXPECT(GASPI_ERROR, rc);
  MR_EXPECT(GASPI_ERROR, gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // broken for good

  gaspi_group_t group = 0;
  MR_OK(gaspi_group_create(&group));
  for (gaspi_rank_t r = 0; r < n; ++r)
    MR_OK(gaspi_group_add(group, r));
  MR_OK(gaspi_group_commit(group, GASPI_BLOCK));
  MR_OK(gaspi_barrier(group, GASPI_BLOCK));
  unsigned long sum = 0;
  MR_OK(gaspi_allreduce(&in, &sum, 1, GASPI_OP_SUM, GASPI_TYPE_ULONG, group, GASPI_BLOCK));
  MR_CHECK(sum == (n == 64 ? ~0ul : (1ul << n) - 1));
  MR_OK(gaspi_barrier(group, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  if (me == 0)
    std::printf("SUCCESS mr_collective_error\n");
  return 0;
}
