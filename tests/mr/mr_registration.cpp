// A segment is reached only by the ranks it is registered with (spec §7.2: gaspi_segment_register
// "makes the segment available to the rank"), on every path alike. Before, node peers reached a
// segment that was allocated and never registered, while ranks of other nodes got
// GASPI_ERR_INV_SEG: a program that forgot to register passed on one node and failed across nodes.
//  1. Every rank allocates kSeg and registers it with nobody: every other rank's write, read,
//     notify, fetch_add and gaspi_segment_size on it fail with GASPI_ERR_INV_SEG.
//  2. Every rank registers it with its left neighbour only: the left neighbour's write and notify
//     reach it, data checked; a rank two to the left (4 ranks) still fails.
//  3. Deleted and allocated again, it is registered with nobody again.
#include <cstdint>
#include <cstring>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 7, kSrc = 0;
constexpr gaspi_queue_id_t kQ = 0;
constexpr gaspi_size_t kSize = 4096;
constexpr gaspi_timeout_t kTimeout = 20000;

gaspi_rank_t me = 0, n = 0;

void expect_refused(gaspi_rank_t peer) {
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(kSrc, 0, peer, kSeg, 0, 8, kQ, kTimeout));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_read(kSrc, 0, peer, kSeg, 0, 8, kQ, kTimeout));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_notify(kSeg, peer, 0, 1, kQ, kTimeout));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write_notify(kSrc, 0, peer, kSeg, 0, 8, 0, 1, kQ, kTimeout));
  gaspi_atomic_value_t old = 0;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_atomic_fetch_add(kSeg, 0, peer, 1, &old, kTimeout));
  gaspi_size_t size = 0;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_size(kSeg, peer, &size));
  MR_OK(gaspi_wait(kQ, kTimeout)); // nothing was posted
}

void allocate_unregistered() {
  MR_OK(gaspi_segment_alloc(kSeg, kSize, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  for (gaspi_rank_t peer = 0; peer < n; ++peer)
    if (peer != me)
      expect_refused(peer);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
}

} // namespace

int main() {
  mr_init(me, n);
  MR_OK(gaspi_segment_create(kSrc, kSize, GASPI_GROUP_ALL, kTimeout, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t src = nullptr;
  MR_OK(gaspi_segment_ptr(kSrc, &src));
  std::memset(src, 0x40 + me, kSize);

  allocate_unregistered();
  if (n > 1) {
    const auto left = static_cast<gaspi_rank_t>((me + n - 1) % n);
    const auto right = static_cast<gaspi_rank_t>((me + 1) % n);
    MR_OK(gaspi_segment_register(kSeg, left, kTimeout));
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
    gaspi_size_t size = 0;
    MR_OK(gaspi_segment_size(kSeg, right, &size));
    MR_CHECK(size == kSize);
    MR_OK(gaspi_write_notify(kSrc, 0, right, kSeg, 0, kSize, 3, 1, kQ, kTimeout));
    MR_OK(gaspi_wait(kQ, kTimeout));
    gaspi_notification_id_t got = 0;
    gaspi_notification_t value = 0;
    MR_OK(gaspi_notify_waitsome(kSeg, 3, 1, &got, kTimeout));
    MR_OK(gaspi_notify_reset(kSeg, got, &value));
    MR_CHECK(value == 1);
    gaspi_pointer_t data = nullptr;
    MR_OK(gaspi_segment_ptr(kSeg, &data));
    for (gaspi_size_t i = 0; i < kSize; ++i)
      MR_CHECK(static_cast<unsigned char *>(data)[i] == 0x40 + left);
    if (n > 2)
      expect_refused(static_cast<gaspi_rank_t>((me + 2) % n)); // registered with its own left only
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  }
  MR_OK(gaspi_segment_delete(kSeg));
  allocate_unregistered();
  MR_OK(gaspi_segment_delete(kSeg));
  mr_finish("mr_registration");
  return 0;
}
