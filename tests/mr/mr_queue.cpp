// Queues (spec §8.5 and the GASPI_QUEUE_FULL errata): a full queue refuses a post whole, gaspi_wait
// frees it, the re-post succeeds; write_notify takes two entries; created queues work; posts from
// several threads with the errata's wait-if-full idiom deliver every byte.
#include <thread>
#include <vector>

#include "mr_util.hpp"

namespace {
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_number_t kQueueSize = 16;
constexpr gaspi_size_t kSlot = 64;
} // namespace

int main() {
  gaspi_config_t config;
  MR_OK(gaspi_config_get(&config));
  config.queue_size_max = kQueueSize;
  MR_OK(gaspi_config_set(config));
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  gaspi_number_t qmax = 0;
  MR_OK(gaspi_queue_size_max(&qmax));
  MR_CHECK(qmax == kQueueSize);

  const gaspi_size_t bytes = 2 * 4096 * kSlot;
  MR_OK(gaspi_segment_create(kSeg, bytes, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  unsigned char *seg = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t *>(&seg)));
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + 1) % n);
  const gaspi_rank_t from = static_cast<gaspi_rank_t>((me + n - 1) % n);

  // Fill queue 0 to the brim.
  for (gaspi_number_t i = 0; i < kQueueSize; ++i) {
    seg[bytes / 2 + i] = static_cast<unsigned char>(me + i + 1);
    MR_OK(gaspi_write(kSeg, bytes / 2 + i, to, kSeg, i, 1, 0, GASPI_BLOCK));
  }
  gaspi_number_t size = 0;
  MR_OK(gaspi_queue_size(0, &size));
  MR_CHECK(size == kQueueSize);
  MR_EXPECT(GASPI_QUEUE_FULL, gaspi_write(kSeg, bytes / 2, to, kSeg, 100, 1, 0, GASPI_BLOCK));
  MR_EXPECT(GASPI_QUEUE_FULL, gaspi_notify(kSeg, to, 0, 1, 0, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(0, &size));
  MR_CHECK(size == kQueueSize); // refused posts took nothing

  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(0, &size));
  MR_CHECK(size == 0);
  // write_notify takes two entries: with one left it is refused, after a wait it goes through.
  for (gaspi_number_t i = 0; i < kQueueSize - 1; ++i)
    MR_OK(gaspi_write(kSeg, bytes / 2 + i, to, kSeg, i, 1, 0, GASPI_BLOCK));
  MR_EXPECT(GASPI_QUEUE_FULL, gaspi_write_notify(kSeg, bytes / 2, to, kSeg, 0, kQueueSize, 5, 7, 0, GASPI_BLOCK));
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_write_notify(kSeg, bytes / 2, to, kSeg, 0, kQueueSize, 5, 7, 0, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(0, &size));
  MR_CHECK(size == 2);
  gaspi_notification_id_t id = 0;
  gaspi_notification_t val = 0;
  MR_OK(gaspi_notify_waitsome(kSeg, 5, 1, &id, GASPI_BLOCK));
  MR_OK(gaspi_notify_reset(kSeg, 5, &val));
  MR_CHECK(val == 7);
  for (gaspi_number_t i = 0; i < kQueueSize; ++i)
    MR_CHECK(seg[i] == static_cast<unsigned char>(from + i + 1));
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // A list longer than the free entries is refused whole (an empty queue would take it: any single
  // call fits an empty queue, core/queues.hpp).
  std::vector<gaspi_segment_id_t> segs(kQueueSize + 1, kSeg);
  std::vector<gaspi_offset_t> offs(kQueueSize + 1, 0);
  std::vector<gaspi_size_t> sizes(kQueueSize + 1, 1);
  MR_OK(gaspi_write(kSeg, 0, to, kSeg, 0, 0, 0, GASPI_BLOCK)); // one entry, no data
  MR_EXPECT(GASPI_QUEUE_FULL, gaspi_write_list(kQueueSize, segs.data(), offs.data(), to, segs.data(), offs.data(),
                                               sizes.data(), 0, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(0, &size));
  MR_CHECK(size == 1);
  MR_OK(gaspi_wait(0, GASPI_BLOCK));

  // Created queues: usable, cannot be deleted while busy, purge empties them.
  gaspi_number_t qnum = 0;
  MR_OK(gaspi_queue_num(&qnum));
  gaspi_queue_id_t q = 0;
  MR_OK(gaspi_queue_create(&q, GASPI_BLOCK));
  MR_CHECK(q == qnum);
  MR_OK(gaspi_write(kSeg, bytes / 2, to, kSeg, bytes / 4, 8, q, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERROR, gaspi_queue_delete(q));
  MR_OK(gaspi_queue_purge(q, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(q, &size));
  MR_CHECK(size == 0);
  MR_OK(gaspi_queue_delete(q));
  MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_write(kSeg, 0, to, kSeg, 0, 8, q, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // Four threads post 4096 one-slot writes to queue 1 with the errata's WAIT_IF_QUEUE_FULL.
  const int kThreads = 4, kPerThread = 1024;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const gaspi_offset_t slot = static_cast<gaspi_offset_t>(t * kPerThread + i) * kSlot;
        for (gaspi_size_t b = 0; b < kSlot; ++b)
          seg[bytes / 2 + slot + b] = static_cast<unsigned char>(slot / kSlot + b + me);
        gaspi_return_t rc;
        while ((rc = gaspi_write(kSeg, bytes / 2 + slot, to, kSeg, slot, kSlot, 1, GASPI_BLOCK)) == GASPI_QUEUE_FULL)
          MR_OK(gaspi_wait(1, GASPI_BLOCK));
        MR_OK(rc);
      }
    });
  for (auto &t : threads)
    t.join();
  MR_OK(gaspi_wait(1, GASPI_BLOCK));
  MR_OK(gaspi_notify(kSeg, to, 9, 1, 1, GASPI_BLOCK));
  MR_OK(gaspi_notify_waitsome(kSeg, 9, 1, &id, GASPI_BLOCK));
  MR_OK(gaspi_notify_reset(kSeg, 9, &val));
  for (gaspi_offset_t slot = 0; slot < gaspi_offset_t(kThreads * kPerThread); ++slot)
    for (gaspi_size_t b = 0; b < kSlot; ++b)
      MR_CHECK(seg[slot * kSlot + b] == static_cast<unsigned char>(slot + b + from));
  MR_OK(gaspi_wait(1, GASPI_BLOCK));
  mr_finish("mr_queue");
  return 0;
}
