// Randomized stress of the communication calls from 2 threads per rank against every rank
// (itself included), with every byte verified. Seeded: each (rank, thread) draws its own
// deterministic sequence of operations (HYGASPI_STRESS_SEED, default 12345); the run lasts
// HYGASPI_STRESS_SECONDS (default 5), so the number of operations varies, their kinds do not.
//
// Protocol (one segment per rank, ids below):
// - Inboxes: thread t of rank s owns inbox(s, t) in every rank's segment. It writes a message
//   there (gaspi_write + gaspi_notify, gaspi_write_notify, or gaspi_write_list_notify in 1-3
//   pieces) with data notification t*64+s, value = sequence number, and writes to that target
//   again only after the target's thread t acknowledged it (notification 1024+t*64+target on the
//   sender). A message is a 16-byte header {seq, len} and len pattern bytes; the receiving thread
//   checks the header against the notification value and every byte when it sees the notification.
// - Reads: every rank's "published" area holds pub(owner, offset) from before the first barrier on;
//   gaspi_read (+ gaspi_wait) and gaspi_read_notify (+ its local notification 2048+t) of random
//   ranges are checked byte by byte.
// - Atomics: gaspi_atomic_fetch_add of random values to kCounters counters of random ranks; each
//   thread tallies what it added, and at the end an allreduce of the tallies must equal each
//   rank's counters exactly.
// - Passive: messages of 16..512 bytes with a header {sender, thread, seq, len} and pattern bytes,
//   sent with GASPI_TEST (a full ring means: try again later) and received by either thread of the
//   target; sent and received counts must match at the end (allreduce).
// - End: a thread stops posting when the time is up, waits for the acks of its writes, then adds
//   1 to the done counter on rank 0 and keeps serving inboxes until all 2n threads are done.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "mr_util.hpp"

void check_passive(const char *buf, gaspi_rank_t from);

namespace {

constexpr int kThreads = 2;
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kInbox = 32 * 1024; // per (sender, thread); header + payload
constexpr gaspi_size_t kHeader = 16;
constexpr gaspi_size_t kPub = 256 * 1024;
constexpr int kCounters = 4;
constexpr gaspi_size_t kPassiveMax = 512;
constexpr gaspi_timeout_t kTimeout = 60000;
constexpr gaspi_notification_id_t kAckBase = 1024;
constexpr gaspi_notification_id_t kReadBase = 2048;

gaspi_rank_t g_n = 0, g_me = 0;
char *g_base = nullptr;

// Segment layout.
gaspi_offset_t inbox_off(gaspi_rank_t s, int t) { return (static_cast<gaspi_offset_t>(s) * kThreads + t) * kInbox; }
gaspi_offset_t src_off(int t) { return (static_cast<gaspi_offset_t>(g_n) * kThreads + t) * kInbox; }
gaspi_offset_t readbuf_off(int t) { return src_off(kThreads) + t * kPub; }
gaspi_offset_t pub_off() { return readbuf_off(kThreads); }
gaspi_offset_t counter_off(int k) { return pub_off() + kPub + 8 * k; }
gaspi_offset_t done_off() { return counter_off(kCounters); }
gaspi_offset_t passive_off(int t, int which) { return done_off() + 64 + (2 * t + which) * kPassiveMax; }
gaspi_size_t seg_size() { return passive_off(kThreads, 0); }

unsigned char data_byte(gaspi_rank_t s, int t, std::uint64_t seq, gaspi_size_t i) {
  return static_cast<unsigned char>(s * 131 + t * 17 + seq * 7 + i * 13 + (i >> 8));
}
unsigned char pub_byte(gaspi_rank_t owner, gaspi_size_t off) {
  return static_cast<unsigned char>(owner * 29 + off * 7 + (off >> 9) + 1);
}

struct Tally {
  std::vector<std::uint64_t> added; // [target * kCounters + k]
  std::uint64_t ops[8] = {};
  std::vector<std::uint64_t> passive_sent; // per target
};

std::atomic<std::uint64_t> g_passive_received{0};

void fail_at(int line, const char *what, gaspi_rank_t peer, std::uint64_t a, std::uint64_t b) {
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s (peer %u, %lu vs %lu)", what, peer, (unsigned long)a, (unsigned long)b);
  mr::fail(__FILE__, line, msg);
}
#define STRESS_CHECK(cond, what, peer, a, b)                                                                           \
  do {                                                                                                                 \
    if (!(cond))                                                                                                       \
      fail_at(__LINE__, what, peer, a, b);                                                                             \
  } while (0)

class Worker {
public:
  Worker(int t, std::uint64_t seed, double seconds) : t_(t), rng_(seed), seconds_(seconds) {
    outstanding_.assign(g_n, 0);
    seq_.assign(g_n, 0);
    tally_.added.assign(static_cast<std::size_t>(g_n) * kCounters, 0);
    tally_.passive_sent.assign(g_n, 0);
  }

  void run() {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds_);
    while (std::chrono::steady_clock::now() < end) {
      serve();
      post_one();
    }
    // Wait for the acks of our own writes, then say so, and serve until everyone has.
    for (;;) {
      serve();
      bool any = false;
      for (auto o : outstanding_)
        any |= o != 0;
      if (!any)
        break;
    }
    gaspi_atomic_value_t old = 0;
    MR_OK(gaspi_atomic_fetch_add(kSeg, done_off(), 0, 1, &old, kTimeout));
    const auto total = static_cast<gaspi_atomic_value_t>(g_n) * kThreads;
    for (;;) {
      serve();
      MR_OK(gaspi_atomic_fetch_add(kSeg, done_off(), 0, 0, &old, kTimeout));
      if (old == total)
        break;
      STRESS_CHECK(old < total, "done counter overshot", 0, old, total);
      std::this_thread::yield();
    }
  }

  const Tally &tally() const { return tally_; }

private:
  std::uint64_t rnd(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_); }
  gaspi_queue_id_t q() const { return static_cast<gaspi_queue_id_t>(t_); }

  // Incoming messages in our inboxes, acks of our writes, passive messages.
  void serve() {
    const auto data_begin = static_cast<gaspi_notification_id_t>(t_ * 64);
    for (;;) {
      gaspi_notification_id_t id = 0;
      gaspi_return_t rc = gaspi_notify_waitsome(kSeg, data_begin, g_n, &id, GASPI_TEST);
      if (rc == GASPI_TIMEOUT)
        break;
      MR_OK(rc);
      gaspi_notification_t val = 0;
      MR_OK(gaspi_notify_reset(kSeg, id, &val));
      if (val == 0)
        continue;
      const auto s = static_cast<gaspi_rank_t>(id - data_begin);
      const char *box = g_base + inbox_off(s, t_);
      std::uint64_t hdr[2];
      std::memcpy(hdr, box, sizeof hdr);
      STRESS_CHECK(hdr[0] == val, "inbox header seq differs from the notification value", s, hdr[0], val);
      STRESS_CHECK(hdr[1] >= kHeader && hdr[1] <= kInbox, "inbox length", s, hdr[1], kInbox);
      for (gaspi_size_t i = kHeader; i < hdr[1]; ++i)
        STRESS_CHECK(static_cast<unsigned char>(box[i]) == data_byte(s, t_, val, i), "inbox byte", s, i, val);
      // Ack: the sender may reuse the inbox now.
      MR_OK(gaspi_notify(kSeg, s, static_cast<gaspi_notification_id_t>(kAckBase + t_ * 64 + g_me), val, q(), kTimeout));
      MR_OK(gaspi_wait(q(), kTimeout));
      ++tally_.ops[7];
    }
    const auto ack_begin = static_cast<gaspi_notification_id_t>(kAckBase + t_ * 64);
    for (;;) {
      gaspi_notification_id_t id = 0;
      gaspi_return_t rc = gaspi_notify_waitsome(kSeg, ack_begin, g_n, &id, GASPI_TEST);
      if (rc == GASPI_TIMEOUT)
        break;
      MR_OK(rc);
      gaspi_notification_t val = 0;
      MR_OK(gaspi_notify_reset(kSeg, id, &val));
      const auto d = static_cast<gaspi_rank_t>(id - ack_begin);
      STRESS_CHECK(outstanding_[d] != 0 && val == seq_[d], "unexpected ack", d, val, seq_[d]);
      outstanding_[d] = 0;
    }
    for (;;) {
      gaspi_rank_t from = 0;
      char *buf = g_base + passive_off(t_, 1);
      gaspi_return_t rc = gaspi_passive_receive(kSeg, passive_off(t_, 1), &from, kPassiveMax, GASPI_TEST);
      if (rc == GASPI_TIMEOUT)
        break;
      MR_OK(rc);
      check_passive(buf, from);
    }
  }

  void post_one() {
    const gaspi_rank_t d = static_cast<gaspi_rank_t>(rnd(g_n));
    switch (rnd(7)) {
    case 0:
    case 1:
    case 2:
      if (outstanding_[d] == 0)
        write_message(d, static_cast<int>(rnd(3)));
      break;
    case 3:
      read(d, rnd(2) == 0);
      break;
    case 4:
      atomic(d);
      break;
    default:
      passive(d);
      break;
    }
  }

  void write_message(gaspi_rank_t d, int how) {
    const std::uint64_t seq = seq_[d] + 1;
    const gaspi_size_t len = kHeader + rnd(kInbox - kHeader + 1);
    char *src = g_base + src_off(t_);
    const std::uint64_t hdr[2] = {seq, len};
    std::memcpy(src, hdr, sizeof hdr);
    for (gaspi_size_t i = kHeader; i < len; ++i)
      src[i] = static_cast<char>(data_byte(g_me, t_, seq, i));
    const auto note = static_cast<gaspi_notification_id_t>(t_ * 64 + g_me);
    const auto value = static_cast<gaspi_notification_t>(seq);
    const gaspi_offset_t dst = inbox_off(g_me, t_);
    if (how == 0) {
      MR_OK(gaspi_write(kSeg, src_off(t_), d, kSeg, dst, len, q(), kTimeout));
      MR_OK(gaspi_notify(kSeg, d, note, value, q(), kTimeout));
    } else if (how == 1) {
      MR_OK(gaspi_write_notify(kSeg, src_off(t_), d, kSeg, dst, len, note, value, q(), kTimeout));
    } else {
      // 1-3 pieces in a random order of cut points.
      const gaspi_number_t pieces = static_cast<gaspi_number_t>(1 + rnd(3));
      gaspi_segment_id_t sl[3], sr[3];
      gaspi_offset_t ol[3], orr[3];
      gaspi_size_t sz[3];
      gaspi_size_t cut[4] = {0, 0, 0, len};
      for (gaspi_number_t p = 1; p < pieces; ++p)
        cut[p] = 1 + rnd(len - 1);
      cut[pieces] = len;
      if (pieces == 3 && cut[1] > cut[2])
        std::swap(cut[1], cut[2]);
      gaspi_number_t used = 0;
      for (gaspi_number_t p = 0; p < pieces; ++p) {
        if (cut[p + 1] <= cut[p])
          continue;
        sl[used] = sr[used] = kSeg;
        ol[used] = src_off(t_) + cut[p];
        orr[used] = dst + cut[p];
        sz[used] = cut[p + 1] - cut[p];
        ++used;
      }
      MR_OK(gaspi_write_list_notify(used, sl, ol, d, sr, orr, sz, kSeg, note, value, q(), kTimeout));
    }
    MR_OK(gaspi_wait(q(), kTimeout)); // the source area is reused by the next message
    seq_[d] = seq;
    outstanding_[d] = 1;
    ++tally_.ops[how];
  }

  void read(gaspi_rank_t d, bool with_notify) {
    const gaspi_size_t len = 1 + rnd(4096 * (1 + rnd(16)));
    const gaspi_size_t off = rnd(kPub - len + 1);
    char *buf = g_base + readbuf_off(t_);
    std::memset(buf, 0, len);
    if (with_notify) {
      const auto note = static_cast<gaspi_notification_id_t>(kReadBase + t_);
      MR_OK(gaspi_read_notify(kSeg, readbuf_off(t_), d, kSeg, pub_off() + off, len, note, q(), kTimeout));
      gaspi_notification_id_t id = 0;
      MR_OK(gaspi_notify_waitsome(kSeg, note, 1, &id, kTimeout));
      gaspi_notification_t val = 0;
      MR_OK(gaspi_notify_reset(kSeg, id, &val));
      STRESS_CHECK(val != 0, "read_notify value", d, val, 1);
      MR_OK(gaspi_wait(q(), kTimeout));
      ++tally_.ops[4];
    } else {
      MR_OK(gaspi_read(kSeg, readbuf_off(t_), d, kSeg, pub_off() + off, len, q(), kTimeout));
      MR_OK(gaspi_wait(q(), kTimeout));
      ++tally_.ops[3];
    }
    for (gaspi_size_t i = 0; i < len; ++i)
      STRESS_CHECK(static_cast<unsigned char>(buf[i]) == pub_byte(d, off + i), "read byte", d, off + i, len);
  }

  void atomic(gaspi_rank_t d) {
    const int k = static_cast<int>(rnd(kCounters));
    const gaspi_atomic_value_t add = 1 + rnd(1000);
    gaspi_atomic_value_t old = 0;
    MR_OK(gaspi_atomic_fetch_add(kSeg, counter_off(k), d, add, &old, kTimeout));
    // What we added before is in there already.
    STRESS_CHECK(old >= tally_.added[d * kCounters + k], "fetch_add old value below our own adds", d, old,
                 tally_.added[d * kCounters + k]);
    tally_.added[d * kCounters + k] += add;
    ++tally_.ops[5];
  }

  void passive(gaspi_rank_t d) {
    const gaspi_size_t len = 16 + rnd(kPassiveMax - 16 + 1);
    char *buf = g_base + passive_off(t_, 0);
    const std::uint32_t hdr[4] = {g_me, static_cast<std::uint32_t>(t_),
                                  static_cast<std::uint32_t>(tally_.passive_sent[d] + 1),
                                  static_cast<std::uint32_t>(len)};
    std::memcpy(buf, hdr, sizeof hdr);
    for (gaspi_size_t i = 16; i < len; ++i)
      buf[i] = static_cast<char>(data_byte(g_me, t_, hdr[2], i));
    gaspi_return_t rc = gaspi_passive_send(kSeg, passive_off(t_, 0), d, len, GASPI_TEST);
    if (rc == GASPI_TIMEOUT)
      return; // the target's ring is full: nothing was sent
    MR_OK(rc);
    ++tally_.passive_sent[d];
    ++tally_.ops[6];
  }

  int t_;
  std::mt19937_64 rng_;
  double seconds_;
  std::vector<std::uint8_t> outstanding_; // per target: a write not yet acknowledged
  std::vector<std::uint64_t> seq_;        // per target: sequence number of the last write
  Tally tally_;
};

} // namespace

void check_passive(const char *buf, gaspi_rank_t from) {
  std::uint32_t hdr[4];
  std::memcpy(hdr, buf, sizeof hdr);
  STRESS_CHECK(hdr[0] == from && hdr[1] < kThreads && hdr[3] >= 16 && hdr[3] <= kPassiveMax, "passive header", from,
               hdr[0], hdr[3]);
  for (gaspi_size_t i = 16; i < hdr[3]; ++i)
    STRESS_CHECK(static_cast<unsigned char>(buf[i]) == data_byte(from, static_cast<int>(hdr[1]), hdr[2], i),
                 "passive byte", from, i, hdr[2]);
  g_passive_received.fetch_add(1, std::memory_order_relaxed);
}

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  g_me = me;
  g_n = n;
  MR_CHECK(n <= 64);
  const char *sec_env = std::getenv("HYGASPI_STRESS_SECONDS");
  const char *seed_env = std::getenv("HYGASPI_STRESS_SEED");
  const double seconds = sec_env != nullptr ? std::atof(sec_env) : 5.0;
  const std::uint64_t seed = seed_env != nullptr ? std::strtoull(seed_env, nullptr, 10) : 12345;
  MR_CHECK(seconds > 0 && seconds < 3600);

  MR_OK(gaspi_segment_create(kSeg, seg_size(), GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  g_base = static_cast<char *>(p);
  for (gaspi_size_t i = 0; i < kPub; ++i)
    g_base[pub_off() + i] = static_cast<char>(pub_byte(me, i));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));

  std::vector<Worker> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back(t, seed * 1000003u + me * 7919u + static_cast<std::uint64_t>(t), seconds);
  {
    std::vector<std::thread> threads;
    for (auto &w : workers)
      threads.emplace_back([&w] { w.run(); });
    for (auto &th : threads)
      th.join();
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));

  // Totals: counters and passive messages per target, summed over every sender.
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(n) * (kCounters + 1), 0), sum(mine.size(), 0);
  std::uint64_t ops[8] = {};
  for (auto &w : workers) {
    for (gaspi_rank_t d = 0; d < n; ++d) {
      for (int k = 0; k < kCounters; ++k)
        mine[d * (kCounters + 1) + k] += w.tally().added[d * kCounters + k];
      mine[d * (kCounters + 1) + kCounters] += w.tally().passive_sent[d];
    }
    for (int i = 0; i < 8; ++i)
      ops[i] += w.tally().ops[i];
  }
  // gaspi_allreduce takes at most 255 elements: n * 5 <= 320 for n <= 64, so in two halves.
  for (std::size_t begin = 0; begin < mine.size(); begin += 160) {
    const auto count = static_cast<gaspi_number_t>(std::min<std::size_t>(160, mine.size() - begin));
    MR_OK(gaspi_allreduce(mine.data() + begin, sum.data() + begin, count, GASPI_OP_SUM, GASPI_TYPE_ULONG,
                          GASPI_GROUP_ALL, kTimeout));
  }
  for (int k = 0; k < kCounters; ++k) {
    std::uint64_t v = 0;
    std::memcpy(&v, g_base + counter_off(k), sizeof v);
    STRESS_CHECK(v == sum[me * (kCounters + 1) + k], "counter total", me, v, sum[me * (kCounters + 1) + k]);
  }
  if (me == 0) {
    std::uint64_t done = 0;
    std::memcpy(&done, g_base + done_off(), sizeof done);
    STRESS_CHECK(done == static_cast<std::uint64_t>(n) * kThreads, "done counter", 0, done, n * kThreads);
  }
  // The passive messages still in flight or in the ring.
  const std::uint64_t expect = sum[me * (kCounters + 1) + kCounters];
  while (g_passive_received.load() < expect) {
    gaspi_rank_t from = 0;
    MR_OK(gaspi_passive_receive(kSeg, passive_off(0, 1), &from, kPassiveMax, kTimeout));
    check_passive(g_base + passive_off(0, 1), from);
  }
  STRESS_CHECK(g_passive_received.load() == expect, "passive messages received", me, g_passive_received.load(), expect);
  {
    gaspi_rank_t from = 0;
    MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, passive_off(0, 1), &from, kPassiveMax, GASPI_TEST));
  }
  std::printf("rank %u: write+notify %lu, write_notify %lu, write_list_notify %lu, read %lu, read_notify %lu, "
              "fetch_add %lu, passive %lu, messages verified %lu\n",
              me, (unsigned long)ops[0], (unsigned long)ops[1], (unsigned long)ops[2], (unsigned long)ops[3],
              (unsigned long)ops[4], (unsigned long)ops[5], (unsigned long)ops[6], (unsigned long)ops[7]);
  std::fflush(stdout);
  mr_finish("mr_stress");
  return 0;
}
