// Configuration proposals (spec §5.2.1), one program per proposal set,
// chosen at build time by MR_CONFIG_MODE (tests/CMakeLists.txt builds each mode):
// 1 notification_num 0: segments without notifications; every notify on them is
//   GASPI_ERR_INV_NOTIF_ID, and waiting on none of them returns at once.
// 2 values the machine can give are granted (allreduce_elem_max 1,000,000: a 1 M-element
//   allreduce works); values beyond a type width are clamped (segment_max 300, group_max 1000),
//   and the getters report what was granted.
// 3 queue_size_max 1: every single call fits an empty queue (write_notify takes 2 entries, a
//   list n + 1), the next post finds the queue full, gaspi_wait empties it.
#include <cstdint>
#include <vector>

#include "mr_util.hpp"

#ifndef MR_CONFIG_MODE
#error "MR_CONFIG_MODE must be 1, 2 or 3"
#endif

namespace {

gaspi_rank_t me = 0, n = 0;
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_queue_id_t kQ = 0;
gaspi_rank_t right() { return static_cast<gaspi_rank_t>((me + 1) % n); }
gaspi_rank_t left() { return static_cast<gaspi_rank_t>((me + n - 1) % n); }

std::uint64_t *data() {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  return static_cast<std::uint64_t *>(p);
}

[[maybe_unused]] void no_notifications() {
  gaspi_number_t num = 99;
  MR_OK(gaspi_notification_num(&num));
  MR_CHECK(num == 0);
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  std::vector<char> mem(4096);
  MR_OK(gaspi_segment_use(1, mem.data(), mem.size(), GASPI_GROUP_ALL, GASPI_BLOCK, 0)); // bound, no array
  for (gaspi_segment_id_t s : {gaspi_segment_id_t{0}, gaspi_segment_id_t{1}}) {
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify(s, right(), 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_write_notify(s, 0, right(), s, 0, 8, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_read_notify(s, 0, right(), s, 0, 8, 0, kQ, GASPI_BLOCK));
    gaspi_notification_t old = 0;
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify_reset(s, 0, &old));
    gaspi_notification_id_t first = 0;
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify_waitsome(s, 0, 1, &first, GASPI_TEST));
    MR_OK(gaspi_notify_waitsome(s, 0, 0, &first, GASPI_BLOCK));
  }
  gaspi_number_t queued = 1;
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 0); // the refused calls posted nothing
  // The segments work for plain transfers.
  data()[0] = 0xA000u + me;
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_read(kSeg, 8, left(), kSeg, 0, 8, kQ, GASPI_BLOCK));
  MR_OK(gaspi_read(1, 8, right(), kSeg, 0, 8, kQ, GASPI_BLOCK));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  MR_CHECK(data()[1] == 0xA000u + left());
  std::uint64_t got = 0;
  std::memcpy(&got, mem.data() + 8, 8);
  MR_CHECK(got == 0xA000u + right());
}

[[maybe_unused]] void granted_values() {
  gaspi_number_t v = 0;
  MR_OK(gaspi_allreduce_elem_max(&v));
  MR_CHECK(v == 1000000);
  MR_OK(gaspi_segment_max(&v));
  MR_CHECK(v == 256); // segment ids are 8 bits wide
  MR_OK(gaspi_group_max(&v));
  MR_CHECK(v == 256); // group ids are 8 bits wide
  gaspi_config_t c;
  MR_OK(gaspi_config_get(&c));
  MR_CHECK(c.segment_max == 256 && c.group_max == 256 && c.allreduce_elem_max == 1000000);
  MR_CHECK(c.rw_list_elem_max == 100000 && c.transfer_size_max == (1ul << 40));

  // A 1 M-element allreduce of each width, exact.
  const gaspi_number_t num = 1000000;
  std::vector<double> sd(num), rd(num);
  std::vector<int> si(num), ri(num);
  for (gaspi_number_t i = 0; i < num; ++i) {
    sd[i] = static_cast<double>(i % 1000) + me;
    si[i] = static_cast<int>(i % 777) * (me + 1);
  }
  MR_OK(gaspi_allreduce(sd.data(), rd.data(), num, GASPI_OP_SUM, GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_allreduce(si.data(), ri.data(), num, GASPI_OP_MAX, GASPI_TYPE_INT, GASPI_GROUP_ALL, GASPI_BLOCK));
  const double ranks_sum = n * (n - 1) / 2.0;
  for (gaspi_number_t i = 0; i < num; ++i) {
    MR_CHECK(rd[i] == static_cast<double>(i % 1000) * n + ranks_sum);
    MR_CHECK(ri[i] == static_cast<int>(i % 777) * n);
  }
  MR_EXPECT(GASPI_ERR_INV_NUM, gaspi_allreduce(sd.data(), rd.data(), num + 1, GASPI_OP_SUM, GASPI_TYPE_DOUBLE,
                                               GASPI_GROUP_ALL, GASPI_BLOCK));
  // Segment id 255 exists now (segment_max 256).
  MR_OK(gaspi_segment_create(255, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_segment_delete(255));
}

[[maybe_unused]] void queue_of_one() {
  gaspi_number_t v = 0;
  MR_OK(gaspi_queue_size_max(&v));
  MR_CHECK(v == 1);
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  std::uint64_t *d = data();
  gaspi_number_t queued = 0;
  for (int round = 0; round < 3; ++round) {
    d[0] = 0xB000u + me * 16 + round;
    // write_notify needs 2 entries: it enters the empty queue, the next post finds it full.
    MR_OK(gaspi_write_notify(kSeg, 0, right(), kSeg, 64, 8, 0, 1 + round, kQ, GASPI_BLOCK));
    MR_OK(gaspi_queue_size(kQ, &queued));
    MR_CHECK(queued == 2);
    MR_EXPECT(GASPI_QUEUE_FULL, gaspi_write(kSeg, 0, right(), kSeg, 64, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_QUEUE_FULL, gaspi_notify(kSeg, right(), 1, 1, kQ, GASPI_BLOCK));
    MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
    gaspi_notification_id_t first = 0;
    MR_OK(gaspi_notify_waitsome(kSeg, 0, 1, &first, GASPI_BLOCK));
    gaspi_notification_t value = 0;
    MR_OK(gaspi_notify_reset(kSeg, 0, &value));
    MR_CHECK(value == static_cast<gaspi_notification_t>(1 + round));
    MR_CHECK(d[8] == 0xB000u + left() * 16 + round);
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // the next round overwrites d[0]
  }
  // A list of 3 plus its notification (4 entries) into the empty queue of 1.
  d[1] = 0xC100u + me;
  d[2] = 0xC200u + me;
  d[3] = 0xC300u + me;
  gaspi_segment_id_t sl[3] = {kSeg, kSeg, kSeg}, sr[3] = {kSeg, kSeg, kSeg};
  gaspi_offset_t ol[3] = {8, 16, 24}, orr[3] = {128, 136, 144};
  gaspi_size_t sz[3] = {8, 8, 8};
  MR_OK(gaspi_write_list_notify(3, sl, ol, right(), sr, orr, sz, kSeg, 1, 5, kQ, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 4);
  MR_EXPECT(GASPI_QUEUE_FULL, gaspi_read(kSeg, 0, right(), kSeg, 0, 8, kQ, GASPI_BLOCK));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  MR_OK(gaspi_queue_size(kQ, &queued));
  MR_CHECK(queued == 0);
  gaspi_notification_id_t first = 0;
  MR_OK(gaspi_notify_waitsome(kSeg, 1, 1, &first, GASPI_BLOCK));
  for (int k = 0; k < 3; ++k)
    MR_CHECK(d[16 + k] == 0xC100u + 0x100u * k + left());
}

} // namespace

int main() {
  gaspi_config_t c;
  MR_OK(gaspi_config_get(&c));
#if MR_CONFIG_MODE == 1
  c.notification_num = 0;
#elif MR_CONFIG_MODE == 2
  c.allreduce_elem_max = 1000000;
  c.segment_max = 300;
  c.group_max = 1000;
  c.rw_list_elem_max = 100000;
  c.transfer_size_max = 1ul << 40;
#else
  c.queue_size_max = 1;
#endif
  MR_OK(gaspi_config_set(c));
  gaspi_config_t proposed;
  MR_OK(gaspi_config_get(&proposed)); // before init: the proposal as set
  MR_CHECK(proposed.segment_max == c.segment_max && proposed.notification_num == c.notification_num);
  mr_init(me, n);
#if MR_CONFIG_MODE == 1
  no_notifications();
#elif MR_CONFIG_MODE == 2
  granted_values();
#else
  queue_of_one();
#endif
#define MR_STR2(x) #x
#define MR_STR(x) MR_STR2(x)
  mr_finish("mr_config" MR_STR(MR_CONFIG_MODE)); // the name run_mr.sh expects
#undef MR_STR
#undef MR_STR2
}
