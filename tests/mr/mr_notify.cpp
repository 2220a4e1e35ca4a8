// Notifications (spec §8.3): data posted before a notification on the same queue is visible at the
// moment the notification is seen; several threads waiting on one range consume each
// notification exactly once.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kData = 1 << 20;        // data area at offset 0
constexpr gaspi_offset_t kStage = kData;       // staging area for outgoing data
constexpr gaspi_notification_id_t kDataId = 0; // "your data is there"
constexpr gaspi_notification_id_t kAckId = 1;  // "I have checked it"
constexpr gaspi_notification_id_t kFirstMulti = 16;

// Round k: the sender fills `size` bytes with a pattern of k and writes them, then notifies with
// value k, alternately as write + notify and as one write_notify. The receiver checks the bytes
// the instant waitsome returns; an ack keeps the sender from overwriting unchecked data.
void ordering(gaspi_rank_t me, gaspi_rank_t n, std::uint64_t *seg) {
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + 1) % n);
  const std::size_t sizes[] = {8, 64, 4096, 65536, kData};
  std::uint32_t k = 0;
  for (int rep = 0; rep < 300; ++rep)
    for (std::size_t size : sizes) {
      if (size == kData && rep % 30 != 0)
        continue;
      ++k;
      std::uint64_t *stage = seg + kStage / 8;
      for (std::size_t i = 0; i < size / 8; ++i)
        stage[i] = (std::uint64_t{k} << 32) | i;
      if (k % 2 == 0) {
        MR_OK(gaspi_write(kSeg, kStage, to, kSeg, 0, size, 0, GASPI_BLOCK));
        MR_OK(gaspi_notify(kSeg, to, kDataId, k, 0, GASPI_BLOCK));
      } else {
        MR_OK(gaspi_write_notify(kSeg, kStage, to, kSeg, 0, size, kDataId, k, 0, GASPI_BLOCK));
      }
      // Receive round k from the left neighbour and check it at once.
      gaspi_notification_id_t id = 0;
      gaspi_notification_t val = 0;
      MR_OK(gaspi_notify_waitsome(kSeg, kDataId, 1, &id, GASPI_BLOCK));
      for (std::size_t i = 0; i < size / 8; ++i)
        if (seg[i] != ((std::uint64_t{k} << 32) | i))
          MR_CHECK(!"data not visible when its notification was");
      MR_OK(gaspi_notify_reset(kSeg, kDataId, &val));
      MR_CHECK(val == k);
      const gaspi_rank_t from = static_cast<gaspi_rank_t>((me + n - 1) % n);
      MR_OK(gaspi_notify(kSeg, from, kAckId, 1, 1, GASPI_BLOCK));
      MR_OK(gaspi_notify_waitsome(kSeg, kAckId, 1, &id, GASPI_BLOCK));
      MR_OK(gaspi_notify_reset(kSeg, kAckId, &val));
      MR_CHECK(val == 1);
      MR_OK(gaspi_wait(0, GASPI_BLOCK));
      MR_OK(gaspi_wait(1, GASPI_BLOCK));
    }
}

// Every rank sends kPerSender notifications with distinct ids to rank 0 (rank 0 to itself too);
// four threads on rank 0 wait on the whole range and reset what they find.
void consumed_once(gaspi_rank_t me, gaspi_rank_t n) {
  constexpr gaspi_number_t kPerSender = 1000;
  const gaspi_number_t total = kPerSender * n;
  for (gaspi_number_t i = 0; i < kPerSender; ++i) {
    gaspi_return_t rc;
    while ((rc = gaspi_notify(kSeg, 0, kFirstMulti + me * kPerSender + i, me + 1, 2, GASPI_BLOCK)) == GASPI_QUEUE_FULL)
      MR_OK(gaspi_wait(2, GASPI_BLOCK));
    MR_OK(rc);
  }
  MR_OK(gaspi_wait(2, GASPI_BLOCK));
  if (me == 0) {
    std::vector<std::atomic<int>> seen(total);
    std::atomic<gaspi_number_t> consumed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        while (consumed.load() < total) {
          gaspi_notification_id_t id = 0;
          gaspi_return_t rc = gaspi_notify_waitsome(kSeg, kFirstMulti, total, &id, 20);
          if (rc == GASPI_TIMEOUT)
            continue;
          MR_OK(rc);
          gaspi_notification_t val = 0;
          MR_OK(gaspi_notify_reset(kSeg, id, &val));
          if (val == 0)
            continue; // another thread reset it first
          const gaspi_number_t slot = id - kFirstMulti;
          MR_CHECK(val == slot / kPerSender + 1); // value names the sender
          seen[slot].fetch_add(1);
          consumed.fetch_add(1);
        }
      });
    for (auto &t : threads)
      t.join();
    for (gaspi_number_t i = 0; i < total; ++i)
      MR_CHECK(seen[i].load() == 1);
  }
}

} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_segment_create(kSeg, 2 * kData, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t base = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &base));
  ordering(me, n, static_cast<std::uint64_t *>(base));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  consumed_once(me, n);
  mr_finish("mr_notify");
  return 0;
}
