// The spec's all-to-all transpose examples: Listing 11 (write + notification; read as
// gaspi_write_notify with the sender's rank as notification id, docs/DESIGN.md) and Listing 12
// (gaspi_read + gaspi_wait), both with the errata's WAIT_IF_QUEUE_FULL.
#include "mr_util.hpp"

#define WAIT_IF_QUEUE_FULL(f, queue)                                                                                   \
  do {                                                                                                                 \
    gaspi_return_t ret;                                                                                                \
    while ((ret = (f)) == GASPI_QUEUE_FULL)                                                                            \
      MR_OK(gaspi_wait((queue), GASPI_BLOCK));                                                                         \
    MR_OK(ret);                                                                                                        \
  } while (0)

namespace {

void check_transposed(const int *dst, gaspi_rank_t iProc, gaspi_rank_t nProc) {
  for (gaspi_rank_t r = 0; r < nProc; ++r)
    MR_CHECK(dst[r] == r * nProc + iProc);
}

void listing11(gaspi_rank_t iProc, gaspi_rank_t nProc) {
  gaspi_number_t notification_max = 0;
  MR_OK(gaspi_notification_num(&notification_max));
  MR_CHECK(notification_max >= nProc);
  MR_OK(gaspi_group_commit(GASPI_GROUP_ALL, GASPI_BLOCK));
  const gaspi_segment_id_t segment_id_src = 0, segment_id_dst = 1;
  const gaspi_size_t segment_size = nProc * sizeof(int);
  MR_OK(gaspi_segment_create(segment_id_src, segment_size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  MR_OK(gaspi_segment_create(segment_id_dst, segment_size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  int *src = nullptr, *dst = nullptr;
  MR_OK(gaspi_segment_ptr(segment_id_src, reinterpret_cast<gaspi_pointer_t *>(&src)));
  MR_OK(gaspi_segment_ptr(segment_id_dst, reinterpret_cast<gaspi_pointer_t *>(&dst)));
  const gaspi_queue_id_t queue_id = 0;
  for (gaspi_rank_t rank = 0; rank < nProc; ++rank) {
    src[rank] = iProc * nProc + rank;
    WAIT_IF_QUEUE_FULL(gaspi_write_notify(segment_id_src, rank * sizeof(int), rank, segment_id_dst, iProc * sizeof(int),
                                          sizeof(int), iProc, 1, queue_id, GASPI_BLOCK),
                       queue_id);
  }
  gaspi_number_t notify_cnt = nProc;
  while (notify_cnt > 0) {
    gaspi_notification_id_t first_notify_id = 0;
    MR_OK(gaspi_notify_waitsome(segment_id_dst, 0, nProc, &first_notify_id, GASPI_BLOCK));
    gaspi_notification_t notify_val = 0;
    MR_OK(gaspi_notify_reset(segment_id_dst, first_notify_id, &notify_val));
    if (notify_val != 0)
      --notify_cnt;
  }
  check_transposed(dst, iProc, nProc);
  MR_OK(gaspi_wait(queue_id, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_segment_delete(segment_id_src));
  MR_OK(gaspi_segment_delete(segment_id_dst));
}

void listing12(gaspi_rank_t iProc, gaspi_rank_t nProc) {
  MR_OK(gaspi_group_commit(GASPI_GROUP_ALL, GASPI_BLOCK));
  const gaspi_segment_id_t segment_id_src = 0, segment_id_dst = 1;
  const gaspi_size_t segment_size = nProc * sizeof(int);
  MR_OK(gaspi_segment_create(segment_id_src, segment_size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  MR_OK(gaspi_segment_create(segment_id_dst, segment_size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  int *src = nullptr, *dst = nullptr;
  MR_OK(gaspi_segment_ptr(segment_id_src, reinterpret_cast<gaspi_pointer_t *>(&src)));
  MR_OK(gaspi_segment_ptr(segment_id_dst, reinterpret_cast<gaspi_pointer_t *>(&dst)));
  const gaspi_queue_id_t queue_id = 0;
  for (gaspi_rank_t rank = 0; rank < nProc; ++rank)
    src[rank] = iProc * nProc + rank;
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  for (gaspi_rank_t rank = 0; rank < nProc; ++rank)
    WAIT_IF_QUEUE_FULL(gaspi_read(segment_id_dst, rank * sizeof(int), rank, segment_id_src, iProc * sizeof(int),
                                  sizeof(int), queue_id, GASPI_BLOCK),
                       queue_id);
  MR_OK(gaspi_wait(queue_id, GASPI_BLOCK));
  check_transposed(dst, iProc, nProc);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
}

} // namespace

int main() {
  gaspi_rank_t iProc = 0, nProc = 0;
  mr_init(iProc, nProc);
  listing11(iProc, nProc);
  listing12(iProc, nProc);
  mr_finish("mr_transpose");
  return 0;
}
