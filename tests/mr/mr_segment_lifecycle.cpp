// Nothing of a segment survives gaspi_proc_term (bridge/segments.hpp):
// segment 3 is created and registered with a peer in the first life cycle and not deleted; after
// term and a new init it does not exist, on this rank or as the peer's, and a fresh create,
// register, write_notify and delete work. Runs on shm, mpi and hybrid.
#include <cstdint>
#include <cstring>

#include "mr_util.hpp"

namespace {
constexpr gaspi_segment_id_t kSeg = 3;
constexpr gaspi_size_t kSize = 1 << 16;
constexpr gaspi_queue_id_t kQ = 0;

void exchange(gaspi_rank_t me, gaspi_rank_t to, gaspi_rank_t from, std::uint8_t tag) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  auto *mem = static_cast<std::uint8_t *>(p);
  for (int i = 0; i < 256; ++i)
    mem[i] = static_cast<std::uint8_t>(me + tag + i);
  MR_OK(gaspi_write_notify(kSeg, 0, to, kSeg, 4096, 256, 0, tag, kQ, GASPI_BLOCK));
  gaspi_notification_id_t id = 0;
  MR_OK(gaspi_notify_waitsome(kSeg, 0, 1, &id, GASPI_BLOCK));
  gaspi_notification_t val = 0;
  MR_OK(gaspi_notify_reset(kSeg, id, &val));
  MR_CHECK(val == tag);
  for (int i = 0; i < 256; ++i)
    MR_CHECK(mem[4096 + i] == static_cast<std::uint8_t>(from + tag + i));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
}
} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  const auto to = static_cast<gaspi_rank_t>((me + 1) % n);
  const auto from = static_cast<gaspi_rank_t>((me + n - 1) % n);

  // First life: a collective segment (registered with every member) and an explicit register
  // with the peer; the segment is left alive at term.
  MR_OK(gaspi_segment_create(kSeg, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_segment_register(kSeg, to, GASPI_BLOCK));
  exchange(me, to, from, 1);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));

  // Second life: segment 3 exists nowhere.
  MR_OK(gaspi_proc_init(GASPI_BLOCK));
  gaspi_number_t num = 99;
  MR_OK(gaspi_segment_num(&num));
  MR_CHECK(num == 0);
  gaspi_pointer_t p = nullptr;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(kSeg, &p));
  gaspi_size_t size = 0;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_size(kSeg, to, &size));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(kSeg, 0, to, kSeg, 0, 8, kQ, GASPI_BLOCK));
  gaspi_segment_id_t avail = 99;
  MR_OK(gaspi_segment_avail_local(&avail));
  MR_CHECK(avail == 0);
  // Nobody creates before everyone has looked.
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // A fresh collective create works (no stale pending state resumes a barrier instead), and an
  // explicit register and a delete (which clears the registrations of this life only).
  MR_OK(gaspi_segment_create(kSeg, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_segment_register(kSeg, to, GASPI_BLOCK));
  MR_OK(gaspi_segment_size(kSeg, to, &size));
  MR_CHECK(size == kSize);
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  MR_CHECK(p != nullptr);
  exchange(me, to, from, 2);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_segment_delete(kSeg));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(kSeg, &p));
  mr_finish("mr_segment_lifecycle");
  return 0;
}
