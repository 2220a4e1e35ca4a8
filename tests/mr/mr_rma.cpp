// Data movement verified byte by byte, 1 B to 64 MiB, between every pair of ranks including
// loopback: gaspi_write, gaspi_read, gaspi_write_notify, gaspi_read_notify, on shm segments and
// on bound user memory (gaspi_segment_use on malloc'd memory).
// MR_RMA_MAX_MIB lowers the largest size (1, 4, 16 or 64): the sanitizer passes use 4, as
// the code paths are the same above a few chunks, and 64 MiB under ASan took 48 s per run.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "mr_util.hpp"

namespace {

const gaspi_size_t kMax = [] {
  const char *mib = std::getenv("MR_RMA_MAX_MIB");
  const unsigned long m = mib != nullptr ? std::strtoul(mib, nullptr, 10) : 64;
  return (m == 1 || m == 4 || m == 16 || m == 64 ? m : 64ul) << 20;
}();
constexpr gaspi_segment_id_t kSrc = 0, kDst = 1, kUser = 2;
constexpr gaspi_queue_id_t kQ = 0;

unsigned char pattern(gaspi_rank_t from, gaspi_rank_t to, gaspi_size_t size, gaspi_size_t i) {
  return static_cast<unsigned char>((from * 31 + to * 17 + size * 7 + i * 13 + (i >> 8)) & 0xff);
}

std::vector<gaspi_size_t> sizes() {
  std::vector<gaspi_size_t> s;
  for (gaspi_size_t n = 1; n <= kMax; n *= 4)
    s.push_back(n);
  s.push_back(3);
  s.push_back(4097);
  s.push_back(kMax);
  return s;
}

// Rank `me` writes `size` bytes to `peer` (who receives from me = (peer - d) ring order) and reads
// them back; checks are done by the receiver with the notification as the only synchronisation.
void exchange(gaspi_rank_t me, gaspi_rank_t n, gaspi_segment_id_t dst_seg, unsigned char *src, unsigned char *dst,
              gaspi_size_t size, unsigned char *readback) {
  for (gaspi_rank_t d = 0; d < n; ++d) {
    const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + d) % n);
    const gaspi_rank_t from = static_cast<gaspi_rank_t>((me + n - d) % n);
    for (gaspi_size_t i = 0; i < size; ++i)
      src[i] = pattern(me, to, size, i);
    // Notification id 1 + d so each distance is distinct; value carries the size's low bits + 1.
    MR_OK(gaspi_write_notify(kSrc, 0, to, dst_seg, 0, size, static_cast<gaspi_notification_id_t>(1 + d), 1, kQ,
                             GASPI_BLOCK));
    gaspi_notification_id_t got = 0;
    MR_OK(gaspi_notify_waitsome(dst_seg, 1 + d, 1, &got, GASPI_BLOCK));
    MR_CHECK(got == 1u + d);
    gaspi_notification_t val = 0;
    MR_OK(gaspi_notify_reset(dst_seg, got, &val));
    MR_CHECK(val == 1);
    for (gaspi_size_t i = 0; i < size; ++i)
      if (dst[i] != pattern(from, me, size, i))
        MR_CHECK(!"write: byte mismatch");
    MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // everyone verified; dst may be overwritten

    // Read back what `to` received from me, into the local readback area of kSrc.
    (void)readback;
    MR_OK(gaspi_read_notify(kSrc, kMax, to, dst_seg, 0, size, 0, kQ, GASPI_BLOCK));
    MR_OK(gaspi_notify_waitsome(kSrc, 0, 1, &got, GASPI_BLOCK));
    MR_OK(gaspi_notify_reset(kSrc, 0, &val));
    MR_CHECK(val == 1);
    for (gaspi_size_t i = 0; i < size; ++i)
      if (src[kMax + i] != pattern(me, to, size, i))
        MR_CHECK(!"read: byte mismatch");
    MR_OK(gaspi_read(kSrc, kMax, to, dst_seg, 0, size, kQ, GASPI_BLOCK));
    MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
    for (gaspi_size_t i = 0; i < size; ++i)
      if (src[kMax + i] != pattern(me, to, size, i))
        MR_CHECK(!"plain read: byte mismatch");
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  }
}

} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_segment_create(kSrc, 2 * kMax, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_segment_create(kDst, kMax, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  std::vector<unsigned char> user(kMax);
  MR_OK(gaspi_segment_use(kUser, user.data(), user.size(), GASPI_GROUP_ALL, GASPI_BLOCK, 0));

  gaspi_pointer_t src = nullptr, dst = nullptr, usr = nullptr;
  MR_OK(gaspi_segment_ptr(kSrc, &src));
  MR_OK(gaspi_segment_ptr(kDst, &dst));
  MR_OK(gaspi_segment_ptr(kUser, &usr));
  MR_CHECK(usr == user.data());

  for (gaspi_size_t size : sizes()) {
    exchange(me, n, kDst, static_cast<unsigned char *>(src), static_cast<unsigned char *>(dst), size, nullptr);
    exchange(me, n, kUser, static_cast<unsigned char *>(src), user.data(), size, nullptr);
  }
  MR_OK(gaspi_segment_delete(kUser));
  mr_finish("mr_rma");
  return 0;
}
