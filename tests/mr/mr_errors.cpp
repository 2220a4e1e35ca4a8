// Bad input gets GPI-2's error code and changes nothing: every rank aims rejected calls at its
// successor's segment (and at its own), then checks, after a barrier, that every byte and every
// notification of its segments is as before and that no queue holds an entry. Error messages on
// stderr ("[hygaspi rank R] ...") are expected.
#include <climits>
#include <cstdint>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_size_t kSize = 4096;
constexpr gaspi_segment_id_t kSrc = 0, kDst = 1, kScratch = 2;
constexpr gaspi_segment_id_t kMissing = 7; // a valid id that no rank creates
constexpr gaspi_queue_id_t kQ = 0;

unsigned char pattern(gaspi_segment_id_t seg, gaspi_rank_t rank, gaspi_size_t i) {
  return static_cast<unsigned char>((seg * 89 + rank * 37 + i * 11 + (i >> 7)) & 0xff);
}

void fill(gaspi_segment_id_t seg, gaspi_rank_t me) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(seg, &p));
  auto *b = static_cast<unsigned char *>(p);
  for (gaspi_size_t i = 0; i < kSize; ++i)
    b[i] = pattern(seg, me, i);
}

void expect_unchanged(gaspi_segment_id_t seg, gaspi_rank_t me) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(seg, &p));
  const auto *b = static_cast<const unsigned char *>(p);
  for (gaspi_size_t i = 0; i < kSize; ++i)
    if (b[i] != pattern(seg, me, i))
      MR_CHECK(!"segment bytes changed by a rejected call");
}

// No notification of `seg` is set: waitsome over the whole range times out at once.
void expect_no_notifications(gaspi_segment_id_t seg) {
  gaspi_number_t notif_num = 0;
  MR_OK(gaspi_notification_num(&notif_num));
  gaspi_notification_id_t first = 0;
  MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(seg, 0, notif_num, &first, GASPI_TEST));
}

void expect_queues_empty() {
  gaspi_number_t queues = 0;
  MR_OK(gaspi_queue_num(&queues));
  for (gaspi_number_t q = 0; q < queues; ++q) {
    gaspi_number_t size = 1;
    MR_OK(gaspi_queue_size(static_cast<gaspi_queue_id_t>(q), &size));
    MR_CHECK(size == 0);
  }
}

void before_init() {
  gaspi_rank_t r = 0;
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_proc_rank(&r));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_proc_num(&r));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_write(kSrc, 0, 0, kDst, 0, 8, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_read(kSrc, 0, 0, kDst, 0, 8, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_notify(kDst, 0, 0, 1, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_segment_alloc(kSrc, kSize, GASPI_MEM_INITIALIZED));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_segment_create(kSrc, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_wait(kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_proc_term(GASPI_BLOCK));
  gaspi_group_t g = 0;
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_group_create(&g));
  // The clock works before init (GPI-2's utils/time_get calls it first) and keeps going across it.
  gaspi_time_t t0 = -1;
  MR_OK(gaspi_time_get(&t0));
  MR_CHECK(t0 >= 0);
  gaspi_number_t inited = 1;
  MR_OK(gaspi_initialized(&inited));
  MR_CHECK(inited == 0);

  // An impossible configuration is rejected and leaves the proposal as it was.
  gaspi_config_t defaults{};
  MR_OK(gaspi_config_get(&defaults));
  gaspi_config_t bad = defaults;
  bad.queue_num = 0;
  MR_EXPECT(GASPI_ERR_CONFIG, gaspi_config_set(bad));
  gaspi_config_t now{};
  MR_OK(gaspi_config_get(&now));
  MR_CHECK(now.queue_num == defaults.queue_num);
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_config_get(nullptr));

  // A value above the implementation's limit is a proposal: accepted and clamped.
  gaspi_config_t big = defaults;
  big.queue_num = 1000;
  MR_OK(gaspi_config_set(big));
}

void after_init(gaspi_rank_t me, gaspi_rank_t n) {
  MR_EXPECT(GASPI_ERR_INITED, gaspi_proc_init(GASPI_BLOCK));
  gaspi_config_t c{};
  MR_OK(gaspi_config_get(&c));
  MR_EXPECT(GASPI_ERR_INITED, gaspi_config_set(c));
  gaspi_number_t queues = 0, queue_max = 0;
  MR_OK(gaspi_queue_num(&queues));
  MR_OK(gaspi_queue_max(&queue_max));
  MR_CHECK(queue_max == 16);
  MR_CHECK(queues >= 1 && queues <= queue_max);
  gaspi_number_t inited = 0;
  MR_OK(gaspi_initialized(&inited));
  MR_CHECK(inited == 1);
  gaspi_rank_t r = 0;
  MR_OK(gaspi_proc_rank(&r));
  MR_CHECK(r == me && me < n);
}

// Every argument of a single transfer, one at a time.
void bad_transfers(gaspi_rank_t me, gaspi_rank_t n) {
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + 1) % n);
  gaspi_number_t queues = 0, notif_num = 0, seg_max = 0;
  gaspi_size_t tmax = 0;
  MR_OK(gaspi_queue_num(&queues));
  MR_OK(gaspi_notification_num(&notif_num));
  MR_OK(gaspi_segment_max(&seg_max));
  MR_OK(gaspi_transfer_size_max(&tmax));
  const auto bad_q = static_cast<gaspi_queue_id_t>(queues);
  const auto bad_seg = static_cast<gaspi_segment_id_t>(seg_max); // 255: >= segment_max
  MR_CHECK(seg_max == 255);

  for (gaspi_rank_t peer : {to, me}) {
    // Segment ids: out of range and not existing, local and remote.
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(bad_seg, 0, peer, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(kSrc, 0, peer, bad_seg, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(kMissing, 0, peer, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(kSrc, 0, peer, kMissing, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_read(kScratch, 0, peer, kMissing, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_read(kMissing, 0, peer, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write_notify(kSrc, 0, peer, kMissing, 0, 8, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_notify(kMissing, peer, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_notify(bad_seg, peer, 0, 1, kQ, GASPI_BLOCK));

    // Local offset + size beyond the local segment.
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write(kSrc, kSize - 7, peer, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write(kSrc, kSize, peer, kDst, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write(kSrc, ~0ul, peer, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write(kSrc, ~0ul - 3, peer, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_read(kScratch, kSize - 1, peer, kDst, 0, 2, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_read(kScratch, ~0ul, peer, kDst, 0, 2, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write_notify(kSrc, kSize, peer, kDst, 0, 8, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_read_notify(kScratch, kSize - 4, peer, kDst, 0, 8, 0, kQ, GASPI_BLOCK));

    // Remote offset + size beyond the remote segment, including offsets that overflow.
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kSrc, 0, peer, kDst, kSize - 7, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kSrc, 0, peer, kDst, kSize, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kSrc, 0, peer, kDst, ~0ul, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kSrc, 0, peer, kDst, ~0ul - 3, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kSrc, 0, peer, kDst, 1, kSize, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_read(kScratch, 0, peer, kDst, kSize - 1, 2, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_read(kScratch, 0, peer, kDst, ~0ul, 2, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write_notify(kSrc, 0, peer, kDst, ~0ul, 8, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_read_notify(kScratch, 0, peer, kDst, kSize, 8, 0, kQ, GASPI_BLOCK));

    // Queue ids beyond queue_num.
    MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_write(kSrc, 0, peer, kDst, 0, 8, bad_q, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_write(kSrc, 0, peer, kDst, 0, 8, 255, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_read(kScratch, 0, peer, kDst, 0, 8, bad_q, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_notify(kDst, peer, 0, 1, bad_q, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_write_notify(kSrc, 0, peer, kDst, 0, 8, 0, 1, bad_q, GASPI_BLOCK));

    // Sizes above transfer_size_max (size 0 is a valid no-op: mr_sizes).
    MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_write(kSrc, 0, peer, kDst, 0, tmax + 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_read(kScratch, 0, peer, kDst, 0, tmax + 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_write_notify(kSrc, 0, peer, kDst, 0, tmax + 1, 0, 1, kQ, GASPI_BLOCK));

    // Notification ids and values.
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify(kDst, peer, notif_num, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify(kDst, peer, UINT_MAX, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_write_notify(kSrc, 0, peer, kDst, 0, 8, notif_num, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_read_notify(kScratch, 0, peer, kDst, 0, 8, notif_num, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_VAL, gaspi_notify(kDst, peer, 0, 0, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_VAL, gaspi_write_notify(kSrc, 0, peer, kDst, 0, 8, 0, 0, kQ, GASPI_BLOCK));

    // Atomics: misaligned, beyond the segment, missing output.
    gaspi_atomic_value_t old = 12345;
    MR_EXPECT(GASPI_ERR_UNALIGN_OFF, gaspi_atomic_fetch_add(kDst, 4, peer, 1, &old, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_UNALIGN_OFF, gaspi_atomic_fetch_add(kDst, 1, peer, 1, &old, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_UNALIGN_OFF, gaspi_atomic_compare_swap(kDst, 12, peer, 0, 1, &old, GASPI_BLOCK));
    MR_CHECK(old == 12345);
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_atomic_fetch_add(kDst, kSize, peer, 1, &old, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_atomic_compare_swap(kDst, ~0ul - 7, peer, 0, 1, &old, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_atomic_fetch_add(kMissing, 0, peer, 1, &old, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_atomic_fetch_add(kDst, 0, peer, 1, nullptr, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_atomic_compare_swap(kDst, 0, peer, 0, 1, nullptr, GASPI_BLOCK));
    MR_CHECK(old == 12345);
  }

  // Ranks beyond the job.
  for (gaspi_rank_t bad : {n, static_cast<gaspi_rank_t>(n + 1), static_cast<gaspi_rank_t>(65535)}) {
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_write(kSrc, 0, bad, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_read(kScratch, 0, bad, kDst, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_notify(kDst, bad, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_write_notify(kSrc, 0, bad, kDst, 0, 8, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_read_notify(kScratch, 0, bad, kDst, 0, 8, 0, kQ, GASPI_BLOCK));
    gaspi_atomic_value_t old = 0;
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_atomic_fetch_add(kDst, 0, bad, 1, &old, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_segment_register(kDst, bad, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_connect(bad, GASPI_BLOCK));
    gaspi_size_t size = 0;
    MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_segment_size(kDst, bad, &size));
  }
  expect_queues_empty();
}

// List calls: bad counts, null arrays, and one bad element among good ones. Nothing of a rejected
// list may move, and the queue must not grow.
void bad_lists(gaspi_rank_t me, gaspi_rank_t n) {
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + 1) % n);
  gaspi_number_t list_max = 0, notif_num = 0;
  MR_OK(gaspi_rw_list_elem_max(&list_max));
  MR_OK(gaspi_notification_num(&notif_num));
  MR_CHECK(list_max == 255);
  const gaspi_number_t cap = list_max + 1;
  std::vector<gaspi_segment_id_t> seg_l(cap, kSrc), seg_r(cap, kDst), seg_read_l(cap, kScratch);
  std::vector<gaspi_offset_t> off_l(cap), off_r(cap);
  std::vector<gaspi_size_t> size(cap, 8);
  for (gaspi_number_t i = 0; i < cap; ++i) {
    off_l[i] = (i * 8) % (kSize - 8);
    off_r[i] = (i * 16) % (kSize - 8);
  }

  for (gaspi_rank_t peer : {to, me}) {
    gaspi_number_t before = 99;
    MR_OK(gaspi_queue_size(kQ, &before));
    MR_CHECK(before == 0);

    // Counts: 0 and above rw_list_elem_max.
    for (gaspi_number_t num : {0u, list_max + 1}) {
      MR_EXPECT(GASPI_ERR_INV_NUM, gaspi_write_list(num, seg_l.data(), off_l.data(), peer, seg_r.data(), off_r.data(),
                                                    size.data(), kQ, GASPI_BLOCK));
      MR_EXPECT(GASPI_ERR_INV_NUM, gaspi_read_list(num, seg_read_l.data(), off_l.data(), peer, seg_r.data(),
                                                   off_r.data(), size.data(), kQ, GASPI_BLOCK));
      MR_EXPECT(GASPI_ERR_INV_NUM, gaspi_write_list_notify(num, seg_l.data(), off_l.data(), peer, seg_r.data(),
                                                           off_r.data(), size.data(), kDst, 0, 1, kQ, GASPI_BLOCK));
      MR_EXPECT(GASPI_ERR_INV_NUM, gaspi_read_list_notify(num, seg_read_l.data(), off_l.data(), peer, seg_r.data(),
                                                          off_r.data(), size.data(), kScratch, 0, kQ, GASPI_BLOCK));
    }
    // Null arrays.
    MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_write_list(4, nullptr, off_l.data(), peer, seg_r.data(), off_r.data(),
                                                  size.data(), kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_write_list(4, seg_l.data(), off_l.data(), peer, seg_r.data(), nullptr,
                                                  size.data(), kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_read_list(4, seg_read_l.data(), off_l.data(), peer, seg_r.data(), off_r.data(),
                                                 nullptr, kQ, GASPI_BLOCK));

    // One bad element in the middle of a list of 5, for each kind of bad element.
    struct Case {
      const char *what;
      gaspi_return_t expected;
      void (*spoil)(gaspi_segment_id_t &, gaspi_offset_t &, gaspi_segment_id_t &, gaspi_offset_t &, gaspi_size_t &);
    };
    const Case cases[] = {
        {"remote offset", GASPI_ERR_INV_REM_OFF,
         [](gaspi_segment_id_t &, gaspi_offset_t &, gaspi_segment_id_t &, gaspi_offset_t &o, gaspi_size_t &) {
           o = kSize;
         }},
        {"remote offset overflow", GASPI_ERR_INV_REM_OFF,
         [](gaspi_segment_id_t &, gaspi_offset_t &, gaspi_segment_id_t &, gaspi_offset_t &o, gaspi_size_t &) {
           o = ~0ul;
         }},
        {"local offset", GASPI_ERR_INV_LOC_OFF,
         [](gaspi_segment_id_t &, gaspi_offset_t &o, gaspi_segment_id_t &, gaspi_offset_t &, gaspi_size_t &) {
           o = kSize - 4;
         }},
        {"size above transfer_size_max", GASPI_ERR_INV_COMMSIZE,
         [](gaspi_segment_id_t &, gaspi_offset_t &, gaspi_segment_id_t &, gaspi_offset_t &, gaspi_size_t &s) {
           s = ~0ul;
         }},
        {"remote segment", GASPI_ERR_INV_SEG,
         [](gaspi_segment_id_t &, gaspi_offset_t &, gaspi_segment_id_t &s, gaspi_offset_t &, gaspi_size_t &) {
           s = kMissing;
         }},
        {"local segment", GASPI_ERR_INV_SEG,
         [](gaspi_segment_id_t &s, gaspi_offset_t &, gaspi_segment_id_t &, gaspi_offset_t &, gaspi_size_t &) {
           s = 255;
         }},
    };
    for (const Case &c : cases) {
      std::vector<gaspi_segment_id_t> wl(seg_l.begin(), seg_l.begin() + 5),
          rl(seg_read_l.begin(), seg_read_l.begin() + 5), sr(seg_r.begin(), seg_r.begin() + 5);
      std::vector<gaspi_offset_t> ol(off_l.begin(), off_l.begin() + 5), orr(off_r.begin(), off_r.begin() + 5);
      std::vector<gaspi_size_t> sz(size.begin(), size.begin() + 5);
      std::vector<gaspi_segment_id_t> rl_bad = rl;
      c.spoil(wl[2], ol[2], sr[2], orr[2], sz[2]);
      if (wl[2] != kSrc)
        rl_bad[2] = wl[2]; // a bad local segment for the read lists too
      MR_EXPECT(c.expected,
                gaspi_write_list(5, wl.data(), ol.data(), peer, sr.data(), orr.data(), sz.data(), kQ, GASPI_BLOCK));
      MR_EXPECT(c.expected, gaspi_write_list_notify(5, wl.data(), ol.data(), peer, sr.data(), orr.data(), sz.data(),
                                                    kDst, 3, 1, kQ, GASPI_BLOCK));
      MR_EXPECT(c.expected,
                gaspi_read_list(5, rl_bad.data(), ol.data(), peer, sr.data(), orr.data(), sz.data(), kQ, GASPI_BLOCK));
      MR_EXPECT(c.expected, gaspi_read_list_notify(5, rl_bad.data(), ol.data(), peer, sr.data(), orr.data(), sz.data(),
                                                   kScratch, 3, kQ, GASPI_BLOCK));
      gaspi_number_t after = 99;
      MR_OK(gaspi_queue_size(kQ, &after));
      if (after != 0) {
        std::fprintf(stderr, "list case '%s' left %u queue entries\n", c.what, after);
        MR_CHECK(after == 0);
      }
      // Our own segments: a loopback list would have written kDst, a read list kScratch.
      expect_unchanged(kDst, me);
      expect_unchanged(kScratch, me);
      expect_no_notifications(kScratch);
    }

    // Good elements with a bad notification.
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID,
              gaspi_write_list_notify(5, seg_l.data(), off_l.data(), peer, seg_r.data(), off_r.data(), size.data(),
                                      kDst, notif_num, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_VAL, gaspi_write_list_notify(5, seg_l.data(), off_l.data(), peer, seg_r.data(),
                                                               off_r.data(), size.data(), kDst, 0, 0, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write_list_notify(5, seg_l.data(), off_l.data(), peer, seg_r.data(),
                                                         off_r.data(), size.data(), kMissing, 0, 1, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_NOTIF_ID,
              gaspi_read_list_notify(5, seg_read_l.data(), off_l.data(), peer, seg_r.data(), off_r.data(), size.data(),
                                     kScratch, notif_num, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_read_list_notify(5, seg_read_l.data(), off_l.data(), peer, seg_r.data(),
                                                        off_r.data(), size.data(), kMissing, 0, kQ, GASPI_BLOCK));
    expect_unchanged(kDst, me);
    expect_unchanged(kScratch, me);
    expect_queues_empty();
  }
}

// Segments, groups, notifications waits and null outputs.
void bad_management(gaspi_rank_t me, gaspi_rank_t n) {
  gaspi_number_t seg_num_before = 0, notif_num = 0;
  MR_OK(gaspi_segment_num(&seg_num_before));
  MR_CHECK(seg_num_before == 3);
  MR_OK(gaspi_notification_num(&notif_num));

  // Segment size 0, existing ids, bad ids.
  MR_EXPECT(GASPI_ERR_INV_SEGSIZE, gaspi_segment_alloc(5, 0, GASPI_ALLOC_DEFAULT));
  // More than /dev/shm holds: refused at allocation (the object is fallocate'd before it is
  // mapped), not a SIGBUS at first touch; the id stays free.
  MR_EXPECT(GASPI_ERR_MEMALLOC, gaspi_segment_alloc(5, 1ul << 46, GASPI_ALLOC_DEFAULT));
  gaspi_pointer_t none = nullptr;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(5, &none));
  MR_EXPECT(GASPI_ERR_INV_SEGSIZE, gaspi_segment_create(5, 0, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  std::vector<unsigned char> user(64);
  MR_EXPECT(GASPI_ERR_INV_SEGSIZE, gaspi_segment_bind(5, user.data(), 0, 0));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_segment_bind(5, nullptr, 64, 0));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_segment_use(5, nullptr, 64, GASPI_GROUP_ALL, GASPI_BLOCK, 0));
  gaspi_pointer_t p = nullptr;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(5, &p));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(255, &p));
  gaspi_pointer_t dst_before = nullptr;
  MR_OK(gaspi_segment_ptr(kDst, &dst_before));
  // An id that exists: GASPI_ERR_INV_SEG, as GPI-2.
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_alloc(kDst, kSize, GASPI_ALLOC_DEFAULT));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_alloc(kDst, 2 * kSize, GASPI_MEM_INITIALIZED));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_bind(kDst, user.data(), user.size(), 0));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_alloc(255, kSize, GASPI_ALLOC_DEFAULT));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_create(255, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, 0));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_delete(kMissing));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_delete(255));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_register(kMissing, static_cast<gaspi_rank_t>((me + 1) % n), GASPI_BLOCK));
  gaspi_pointer_t dst_after = nullptr;
  gaspi_size_t dst_size = 0;
  MR_OK(gaspi_segment_ptr(kDst, &dst_after));
  MR_OK(gaspi_segment_size(kDst, me, &dst_size));
  MR_CHECK(dst_after == dst_before && dst_size == kSize);
  gaspi_size_t size = 0;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_size(kMissing, me, &size));
  gaspi_number_t seg_num_after = 0;
  MR_OK(gaspi_segment_num(&seg_num_after));
  MR_CHECK(seg_num_after == seg_num_before);

  // Groups: out of range, never created, created but not committed.
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_barrier(255, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_barrier(5, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_barrier(5, GASPI_TEST));
  gaspi_number_t gsize = 0;
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_size(5, &gsize));
  gaspi_rank_t granks[8];
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_ranks(5, granks));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_delete(5));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_delete(GASPI_GROUP_ALL));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_add(5, 0));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_commit(5, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_segment_create(5, kSize, 5, GASPI_BLOCK, 0));
  gaspi_group_t g = 0;
  MR_OK(gaspi_group_create(&g));
  MR_CHECK(g != GASPI_GROUP_ALL);
  MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_group_add(g, n));
  MR_OK(gaspi_group_add(g, me));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_barrier(g, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_barrier(g, GASPI_TEST));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_segment_create(5, kSize, g, GASPI_BLOCK, 0));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_segment_use(5, user.data(), user.size(), g, GASPI_BLOCK, 0));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(5, &p)); // the rejected creates left nothing behind
  MR_OK(gaspi_group_delete(g));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_barrier(g, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_add(g, me));
  MR_OK(gaspi_segment_num(&seg_num_after));
  MR_CHECK(seg_num_after == seg_num_before);

  // gaspi_notify_waitsome / gaspi_notify_reset ranges.
  gaspi_notification_id_t first = 77;
  MR_OK(gaspi_notify_waitsome(kDst, 0, 0, &first, GASPI_TEST)); // spec §8.3.3: nothing to wait for
  MR_OK(gaspi_notify_waitsome(kDst, 0, 0, &first, GASPI_BLOCK));
  MR_CHECK(first == 77);
  MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify_waitsome(kDst, notif_num - 1, 2, &first, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify_waitsome(kDst, notif_num, 1, &first, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify_waitsome(kDst, 0, notif_num + 1, &first, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify_waitsome(kDst, UINT_MAX, UINT_MAX, &first, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_notify_waitsome(kMissing, 0, 1, &first, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_notify_waitsome(kDst, 0, 1, nullptr, GASPI_BLOCK));
  MR_CHECK(first == 77);
  gaspi_notification_t old = 5;
  MR_EXPECT(GASPI_ERR_INV_NOTIF_ID, gaspi_notify_reset(kDst, notif_num, &old));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_notify_reset(kMissing, 0, &old));
  MR_CHECK(old == 5);

  // Queues.
  gaspi_number_t queues = 0;
  MR_OK(gaspi_queue_num(&queues));
  MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_wait(static_cast<gaspi_queue_id_t>(queues), GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_queue_purge(255, GASPI_BLOCK));
  gaspi_number_t qsize = 0;
  MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_queue_size(255, &qsize));

  // Null out-pointers.
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_proc_rank(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_proc_num(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_queue_size(kQ, nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_queue_num(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_queue_create(nullptr, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_segment_ptr(kDst, nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_segment_num(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_segment_list(3, nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_segment_size(kDst, me, nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_segment_avail_local(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_group_create(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_group_num(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_group_size(GASPI_GROUP_ALL, nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_group_ranks(GASPI_GROUP_ALL, nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_state_vec_get(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_time_get(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_version(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_print_error(GASPI_ERROR, nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_notification_num(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_transfer_size_max(nullptr));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_config_get(nullptr));
  gaspi_number_t group_num = 0;
  MR_OK(gaspi_group_num(&group_num));
  MR_CHECK(group_num == 1); // the rejected gaspi_group_create(nullptr) took no group
  expect_queues_empty();
}

// A valid call of each kind that was rejected above moves exactly its data: the rejections were
// about the arguments, not a broken path.
void positive_control(gaspi_rank_t me, gaspi_rank_t n) {
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + 1) % n);
  const gaspi_rank_t from = static_cast<gaspi_rank_t>((me + n - 1) % n);
  // The last 8 bytes of kSrc go to the last 8 bytes of the successor's kDst.
  MR_OK(gaspi_write_notify(kSrc, kSize - 8, to, kDst, kSize - 8, 8, 9, 1, kQ, GASPI_BLOCK));
  gaspi_notification_id_t got = 0;
  MR_OK(gaspi_notify_waitsome(kDst, 9, 1, &got, GASPI_BLOCK));
  gaspi_notification_t val = 0;
  MR_OK(gaspi_notify_reset(kDst, got, &val));
  MR_CHECK(got == 9 && val == 1);
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kDst, &p));
  const auto *b = static_cast<const unsigned char *>(p);
  for (gaspi_size_t i = 0; i < kSize; ++i) {
    const unsigned char want = i >= kSize - 8 ? pattern(kSrc, from, i) : pattern(kDst, me, i);
    MR_CHECK(b[i] == want);
  }
  gaspi_number_t qs = 0;
  MR_OK(gaspi_queue_size(kQ, &qs));
  MR_CHECK(qs == 2); // write_notify counts as two entries (GPI-2)
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  expect_queues_empty();
}

} // namespace

int main() {
  before_init();
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  after_init(me, n);

  MR_OK(gaspi_segment_create(kSrc, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  MR_OK(gaspi_segment_create(kDst, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  MR_OK(gaspi_segment_create(kScratch, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_DEFAULT));
  fill(kSrc, me);
  fill(kDst, me);
  fill(kScratch, me);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // every rank's pattern is in place

  bad_transfers(me, n);
  bad_lists(me, n);
  bad_management(me, n);

  // Every rank has finished its rejected calls; nothing may have changed anywhere.
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  expect_unchanged(kSrc, me);
  expect_unchanged(kDst, me);
  expect_unchanged(kScratch, me);
  expect_no_notifications(kSrc);
  expect_no_notifications(kDst);
  expect_no_notifications(kScratch);
  expect_queues_empty();
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  positive_control(me, n);
  mr_finish("mr_errors");

  // After gaspi_proc_term the library is uninitialised again.
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_write(kSrc, 0, 0, kDst, 0, 8, kQ, GASPI_BLOCK));
  gaspi_rank_t r = 0;
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_proc_rank(&r));
  return 0;
}
