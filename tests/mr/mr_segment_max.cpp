// gaspi_segment_max() segments at once (GPI-2's tests create 255): every one created on
// GASPI_GROUP_ALL, reached by write_notify and read from a peer, all deleted and created again.
// Over MPI every segment is attached to the one dynamic window, whose component may cap the
// attachments (Open MPI's osc/rdma: osc_rdma_max_attach).
//
// With MR_ATTACH_MAX=L in the environment (and OMPI_MCA_osc_rdma_max_attach=L given to the job,
// see tests/CMakeLists.txt) the test expects that cap instead: L - 1 segments fit beside the
// window's table, the next gaspi_segment_create fails with GASPI_ERR_MANY_SEG on every rank
// rather than hanging, and every segment made before it still works; deleting one makes room
// for one again.
#include <cstdlib>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_queue_id_t kQ = 0;
constexpr gaspi_size_t kPart = 64; // [0, 64) source, [64, 128) written by `from`, [128, 192) read back

gaspi_rank_t g_me = 0, g_n = 1;

unsigned char pattern(gaspi_rank_t from, unsigned seg, unsigned tag, gaspi_size_t i) {
  return static_cast<unsigned char>((from * 41 + seg * 13 + tag * 23 + i * 7) & 0xff);
}

gaspi_size_t seg_size(unsigned seg) { return 3 * kPart + seg * 8; } // a different size per id

unsigned char *seg_ptr(gaspi_segment_id_t seg) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(seg, &p));
  MR_CHECK(p != nullptr);
  return static_cast<unsigned char *>(p);
}

void create(unsigned seg) {
  MR_OK(gaspi_segment_create(static_cast<gaspi_segment_id_t>(seg), seg_size(seg), GASPI_GROUP_ALL, GASPI_BLOCK,
                             GASPI_MEM_INITIALIZED));
}

// Through every segment in `segs`: write_notify into the right neighbour's segment of the same
// id, check what the left neighbour wrote into ours, read back what we wrote.
void round(const std::vector<unsigned> &segs, unsigned tag) {
  const auto to = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  const auto from = static_cast<gaspi_rank_t>((g_me + g_n - 1) % g_n);
  gaspi_number_t posted = 0;
  for (unsigned s : segs) {
    const auto id = static_cast<gaspi_segment_id_t>(s);
    unsigned char *mem = seg_ptr(id);
    for (gaspi_size_t i = 0; i < kPart; ++i)
      mem[i] = pattern(g_me, s, tag, i);
    gaspi_size_t size = 0;
    MR_OK(gaspi_segment_size(id, to, &size));
    MR_CHECK(size == seg_size(s));
    MR_OK(gaspi_write_notify(id, 0, to, id, kPart, kPart, 0, tag * 256 + s + 1, kQ, GASPI_BLOCK));
    if (++posted % 128 == 0) // 2 queue entries each: stay well inside the queue
      MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  }
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  for (unsigned s : segs) {
    const auto id = static_cast<gaspi_segment_id_t>(s);
    gaspi_notification_id_t got = 1;
    MR_OK(gaspi_notify_waitsome(id, 0, 1, &got, GASPI_BLOCK));
    gaspi_notification_t val = 0;
    MR_OK(gaspi_notify_reset(id, got, &val));
    MR_CHECK(got == 0 && val == tag * 256 + s + 1);
    const unsigned char *mem = seg_ptr(id);
    for (gaspi_size_t i = 0; i < kPart; ++i)
      if (mem[kPart + i] != pattern(from, s, tag, i))
        MR_CHECK(!"written bytes differ");
    for (gaspi_size_t i = 3 * kPart; i < seg_size(s); ++i)
      MR_CHECK(mem[i] == 0);
  }
  for (unsigned s : segs) {
    const auto id = static_cast<gaspi_segment_id_t>(s);
    MR_OK(gaspi_read(id, 2 * kPart, to, id, kPart, kPart, kQ, GASPI_BLOCK));
    if (++posted % 128 == 0)
      MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  }
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  for (unsigned s : segs) {
    const unsigned char *mem = seg_ptr(static_cast<gaspi_segment_id_t>(s));
    for (gaspi_size_t i = 0; i < kPart; ++i)
      if (mem[2 * kPart + i] != pattern(g_me, s, tag, i))
        MR_CHECK(!"read bytes differ");
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // nobody touches these segments any more
}

void delete_all(const std::vector<unsigned> &segs) {
  for (unsigned s : segs)
    MR_OK(gaspi_segment_delete(static_cast<gaspi_segment_id_t>(s)));
  gaspi_number_t num = 1;
  MR_OK(gaspi_segment_num(&num));
  MR_CHECK(num == 0);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // gone everywhere before any is made again
}

void every_id(gaspi_number_t max) {
  std::vector<unsigned> segs;
  for (unsigned s = 0; s < max; ++s)
    segs.push_back(s);
  for (unsigned cycle = 0; cycle < 2; ++cycle) {
    for (unsigned s : segs)
      create(s);
    gaspi_number_t num = 0;
    MR_OK(gaspi_segment_num(&num));
    MR_CHECK(num == max);
    gaspi_segment_id_t avail = 0;
    MR_EXPECT(GASPI_ERR_MANY_SEG, gaspi_segment_avail_local(&avail));
    round(segs, 1 + cycle);
    delete_all(segs);
  }
}

void attach_cap(unsigned cap, gaspi_number_t max) {
  MR_CHECK(cap >= 3 && cap - 1 < max);
  std::vector<unsigned> segs;
  for (unsigned s = 0; s + 1 < cap; ++s) { // the window's table takes one attachment
    create(s);
    segs.push_back(s);
  }
  const auto next = static_cast<gaspi_segment_id_t>(cap - 1);
  MR_EXPECT(GASPI_ERR_MANY_SEG,
            gaspi_segment_create(next, seg_size(next), GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t p = nullptr;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(next, &p)); // nothing left of the failed one
  round(segs, 1);
  // Room for exactly one again.
  MR_OK(gaspi_segment_delete(static_cast<gaspi_segment_id_t>(segs.back())));
  segs.pop_back();
  create(next);
  segs.push_back(next);
  MR_EXPECT(GASPI_ERR_MANY_SEG, gaspi_segment_create(static_cast<gaspi_segment_id_t>(cap), seg_size(cap),
                                                     GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  round(segs, 2);
  delete_all(segs);
}

} // namespace

int main() {
  gaspi_config_t config;
  MR_OK(gaspi_config_get(&config));
  config.segment_max = 255; // GPI-2's default is 32; its tests ask for 255
  config.notification_num = 16;
  MR_OK(gaspi_config_set(config));
  mr_init(g_me, g_n);
  gaspi_number_t max = 0;
  MR_OK(gaspi_segment_max(&max));
  MR_CHECK(max == 255);

  const char *cap = std::getenv("MR_ATTACH_MAX");
  if (cap != nullptr && *cap != '\0')
    attach_cap(static_cast<unsigned>(std::atoi(cap)), max);
  else
    every_id(max);
  mr_finish("mr_segment_max");
  return 0;
}
