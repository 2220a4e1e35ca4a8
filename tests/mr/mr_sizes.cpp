// Sizes at their edges with the default configuration:
// - every size computation that could wrap around 2^64 is refused, never turned into a small
//   mapping or buffer (segment sizes and page rounding, bound memory, offset + size, allreduce_user
//   num * element_size);
// - zero-size write, read, write_notify, read_notify and list elements are valid no-ops that take
//   their queue entries and keep the notification order;
// - gaspi_notify_waitsome with num 0 returns GASPI_SUCCESS at once (spec §8.3.3);
// - creating a segment id that exists returns GASPI_ERR_INV_SEG (as GPI-2).
// Each rank writes to its right neighbour and reads from it, so shm, MPI and both mixed are
// covered under hygaspi-run, mpirun (HYGASPI_NODE_SIZE=1) and the hybrid layout.
#include <cstdint>
#include <string>
#include <vector>

#include "mr_util.hpp"

namespace {

gaspi_rank_t me = 0, n = 0;
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kSegSize = 4096;
constexpr gaspi_queue_id_t kQ = 0;

gaspi_rank_t right() { return static_cast<gaspi_rank_t>((me + 1) % n); }
gaspi_rank_t left() { return static_cast<gaspi_rank_t>((me + n - 1) % n); }

int g_user_calls = 0;
gaspi_return_t counting_op(gaspi_pointer_t, gaspi_pointer_t, gaspi_pointer_t, gaspi_reduce_state_t, gaspi_number_t,
                           gaspi_size_t, gaspi_timeout_t) {
  ++g_user_calls;
  return GASPI_SUCCESS;
}

// Item 8: num * element_size wraps (2 * (2^63 + 4) = 8 mod 2^64) and must not pass as 8 bytes.
void allreduce_user_overflow() {
  char send[64] = {}, recv[64] = {};
  const gaspi_size_t huge = (1ull << 63) + 4;
  MR_EXPECT(GASPI_ERR_INV_SIZE,
            gaspi_allreduce_user(send, recv, 2, huge, counting_op, nullptr, GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_SIZE, gaspi_allreduce_user(send, recv, 0xffffffffu, (1ull << 32) + 1, counting_op, nullptr,
                                                     GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_CHECK(g_user_calls == 0);
}

// Item 9: sizes whose page rounding or object size wraps, and bound memory that wraps around the
// address space, are refused; nothing is created, so nothing can be reached through them.
void segment_size_overflow() {
  const gaspi_segment_id_t s = 7;
  for (gaspi_size_t size : {~0ull, ~0ull - 4095, ~0ull - 4096, 1ull << 63, (1ull << 63) + 4096}) {
    MR_EXPECT(GASPI_ERR_INV_SEGSIZE, gaspi_segment_alloc(s, size, GASPI_MEM_UNINITIALIZED));
    MR_EXPECT(GASPI_ERR_INV_SEGSIZE, gaspi_segment_create(s, size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  }
  // Representable, but more than /dev/shm holds: an allocation failure, never success.
  MR_EXPECT(GASPI_ERR_MEMALLOC, gaspi_segment_alloc(s, 1ull << 62, GASPI_MEM_UNINITIALIZED));
  // Bound memory: [pointer, pointer + size) must not wrap.
  auto *top = reinterpret_cast<gaspi_pointer_t>(~std::uintptr_t{0} - 4095);
  MR_EXPECT(GASPI_ERR_INV_SEGSIZE, gaspi_segment_bind(s, top, 8192, 0));
  gaspi_pointer_t p = nullptr;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(s, &p));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(s, 1ull << 40, me, kSeg, 0, 8, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_read(kSeg, 0, me, s, 1ull << 40, 8, kQ, GASPI_BLOCK));
}

// offset + size must not wrap past the end of a segment, locally or remotely, in any call.
void offset_overflow() {
  const gaspi_offset_t near_end = ~0ull - 7;
  MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write(kSeg, near_end, right(), kSeg, 0, 16, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kSeg, 0, right(), kSeg, near_end, 16, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_read(kSeg, near_end, right(), kSeg, 0, 16, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_read(kSeg, 0, right(), kSeg, near_end, 16, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write_notify(kSeg, 0, right(), kSeg, near_end, 16, 0, 1, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_read_notify(kSeg, near_end, right(), kSeg, 0, 16, 0, kQ, GASPI_BLOCK));
  gaspi_atomic_value_t old = 0;
  MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_atomic_fetch_add(kSeg, ~0ull - 7, right(), 1, &old, GASPI_BLOCK));
  // A list whose second element wraps: refused whole, nothing posted.
  gaspi_segment_id_t sl[2] = {kSeg, kSeg}, sr[2] = {kSeg, kSeg};
  gaspi_offset_t ol[2] = {0, 8}, orr[2] = {0, near_end};
  gaspi_size_t sz[2] = {8, 16};
  MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write_list(2, sl, ol, right(), sr, orr, sz, kQ, GASPI_BLOCK));
  gaspi_number_t queued = 1;
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 0);
  // A size of 0 at an offset past the end is still out of bounds.
  MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write(kSeg, kSegSize + 1, right(), kSeg, 0, 0, kQ, GASPI_BLOCK));
}

std::uint64_t *data() {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  return static_cast<std::uint64_t *>(p);
}

gaspi_notification_id_t wait_notification(gaspi_notification_id_t id) {
  gaspi_notification_id_t got = 0;
  MR_OK(gaspi_notify_waitsome(kSeg, id, 1, &got, GASPI_BLOCK));
  MR_CHECK(got == id);
  gaspi_notification_t value = 0;
  MR_OK(gaspi_notify_reset(kSeg, id, &value));
  return value;
}

// Item 10: zero-size transfers are accepted no-ops that count in the queue and keep ordering.
void zero_size_transfers() {
  std::uint64_t *d = data();
  const gaspi_offset_t kOut = 0, kIn = 1024; // my outgoing words, the words my left neighbour writes
  gaspi_number_t queued = 0;
  MR_OK(gaspi_write(kSeg, kOut, right(), kSeg, kIn, 0, kQ, GASPI_BLOCK));
  MR_OK(gaspi_read(kSeg, kIn, right(), kSeg, kOut, 0, kQ, GASPI_BLOCK));
  MR_OK(gaspi_write(kSeg, kSegSize, right(), kSeg, kSegSize, 0, kQ, GASPI_BLOCK)); // at the very end
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 3);
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));

  // Ordering: a write of data, then a zero-size write_notify on the same queue. The notification
  // must not be visible before the data.
  d[kOut / 8] = 0x5100 + me;
  MR_OK(gaspi_write(kSeg, kOut, right(), kSeg, kIn, 8, kQ, GASPI_BLOCK));
  MR_OK(gaspi_write_notify(kSeg, kOut, right(), kSeg, kIn, 0, 1, 7, kQ, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 3); // write 1 + write_notify 2
  MR_CHECK(wait_notification(1) == 7);
  MR_CHECK(d[kIn / 8] == 0x5100u + left());
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));

  // A list with a zero-size element, then its notification: the other elements arrive.
  d[kOut / 8 + 1] = 0x5200 + me;
  d[kOut / 8 + 2] = 0x5300 + me;
  gaspi_segment_id_t sl[3] = {kSeg, kSeg, kSeg}, sr[3] = {kSeg, kSeg, kSeg};
  gaspi_offset_t ol[3] = {kOut + 8, kOut, kOut + 16}, orr[3] = {kIn + 8, kIn, kIn + 16};
  gaspi_size_t sz[3] = {8, 0, 8};
  MR_OK(gaspi_write_list_notify(3, sl, ol, right(), sr, orr, sz, kSeg, 2, 9, kQ, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 4);
  MR_CHECK(wait_notification(2) == 9);
  MR_CHECK(d[kIn / 8 + 1] == 0x5200u + left());
  MR_CHECK(d[kIn / 8 + 2] == 0x5300u + left());
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));

  // Zero-size read_notify and read_list_notify: the local notification (value 1) is still set.
  MR_OK(gaspi_read_notify(kSeg, kIn, right(), kSeg, kOut, 0, 3, kQ, GASPI_BLOCK));
  MR_CHECK(wait_notification(3) == 1);
  MR_OK(gaspi_read_list_notify(3, sl, orr, right(), sr, ol, sz, kSeg, 4, kQ, GASPI_BLOCK));
  MR_CHECK(wait_notification(4) == 1);
  MR_OK(gaspi_read_list(3, sl, orr, right(), sr, ol, sz, kQ, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 2 + 4 + 3);
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // everyone's reads are done before data changes
}

// Item 11: nothing to wait for, so GASPI_BLOCK returns at once; the id is not written.
void waitsome_zero() {
  gaspi_notification_id_t first = 12345;
  MR_OK(gaspi_notify_waitsome(kSeg, 0, 0, &first, GASPI_BLOCK));
  MR_OK(gaspi_notify_waitsome(kSeg, 5, 0, &first, GASPI_TEST));
  MR_CHECK(first == 12345);
  // The other arguments are still checked.
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_notify_waitsome(9, 0, 0, &first, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_notify_waitsome(kSeg, 0, 0, nullptr, GASPI_BLOCK));
}

// Item 15: a segment id that exists is GASPI_ERR_INV_SEG, in every creating call.
void segment_exists() {
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_alloc(kSeg, kSegSize, GASPI_MEM_UNINITIALIZED));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_create(kSeg, kSegSize, GASPI_GROUP_ALL, GASPI_BLOCK, 0));
  std::vector<char> mem(kSegSize);
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_bind(kSeg, mem.data(), mem.size(), 0));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_use(kSeg, mem.data(), mem.size(), GASPI_GROUP_ALL, GASPI_BLOCK, 0));
}

} // namespace

// With an argument, runs only that part (to see each fail on its own against an older library).
int main(int argc, char **argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  auto part = [&](const char *name, void (*fn)()) {
    if (only.empty() || only == name)
      fn();
  };
  mr_init(me, n);
  MR_OK(gaspi_segment_create(kSeg, kSegSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  part("allreduce_user", allreduce_user_overflow);
  part("segment_size", segment_size_overflow);
  part("offset", offset_overflow);
  part("waitsome_zero", waitsome_zero);
  part("segment_exists", segment_exists);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  part("zero_size", zero_size_transfers);
  mr_finish("mr_sizes");
}
