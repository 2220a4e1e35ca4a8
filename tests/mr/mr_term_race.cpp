// gaspi_proc_term while other threads of the rank keep calling the non-blocking data calls: term
// must wait for the calls under way and then fail every later one with GASPI_ERR_NOINIT, never
// unmap a segment under a write. The calls whose fast paths count no shared counter are the ones
// at stake: gaspi_write, gaspi_write_notify, gaspi_notify_reset, gaspi_notify_waitsome with
// GASPI_TEST, gaspi_read, and the inline global atomics (GASPI_inline.h).
//
// Each of 10 lives (4 where the job spans nodes): init, a segment, three threads that hammer the
// right neighbour's segment (and their own), and once each thread has made kWarm successful calls,
// the main thread's gaspi_proc_term. Every thread must end on GASPI_ERR_NOINIT, having seen only
// GASPI_SUCCESS, GASPI_QUEUE_FULL or GASPI_TIMEOUT before it. Before term counted these calls, the
// threads crashed (SIGSEGV in the write, the reset or the atomic, on an unmapped segment) on every
// path. Rank 0 prints "SUCCESS mr_term_race".
#include <atomic>
#include <cstdio>
#include <thread>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
// Fewer where the job spans nodes: each life's init and term are collective over MPI there, and
// 4 ranks of 4 threads that all call MPI share 2 cores.
constexpr int kLivesOnANode = 10, kLivesAcrossNodes = 4;
constexpr unsigned long kWarm = 300;
constexpr gaspi_offset_t kAtomicOffset = 4096;

// The threads call while `up`; they pause while the ranks meet in the barrier before term (an
// MPI barrier on 2 cores against 12 threads that all call MPI took seconds); in `terming` they
// call on, and a call may then also fail because a neighbour has ended its life.
enum Phase { up, paused, terming };
std::atomic<int> g_phase{up};

struct Hammer {
  std::atomic<unsigned long> ok{0}, calls{0};
  std::atomic<bool> resting{false};
  std::atomic<int> last{GASPI_SUCCESS};
  std::thread thread;

  // Calls `step` until it returns GASPI_ERR_NOINIT, or while up, another error (kept in `last`).
  template <class Step> void start(Step step) {
    thread = std::thread([this, step]() mutable {
      for (;;) {
        if (g_phase.load() == paused) {
          resting.store(true);
          while (g_phase.load() == paused)
            std::this_thread::yield();
        }
        const gaspi_return_t rc = step();
        calls.fetch_add(1);
        if (rc == GASPI_SUCCESS || rc == GASPI_QUEUE_FULL || rc == GASPI_TIMEOUT) {
          ok.fetch_add(rc == GASPI_SUCCESS ? 1 : 0, std::memory_order_relaxed);
          continue;
        }
        if (rc == GASPI_ERR_NOINIT || g_phase.load() == up) {
          last.store(rc);
          return;
        }
      }
    });
  }
};

} // namespace

int main() {
  int lives = kLivesOnANode;
  for (int life = 0; life < lives; ++life) {
    gaspi_rank_t me = 0, n = 0;
    mr_init(me, n);
    gaspi_rank_t local = 0;
    MR_OK(gaspi_proc_local_num(&local));
    if (local < n)
      lives = kLivesAcrossNodes;
    const gaspi_rank_t right = static_cast<gaspi_rank_t>((me + 1) % n);
    MR_OK(gaspi_segment_create(kSeg, 1 << 16, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

    Hammer writes, atomics, reads;
    writes.start([right, k = 0u]() mutable {
      ++k;
      if (k % 3 == 0) {
        gaspi_notification_t old = 0;
        return gaspi_notify_reset(kSeg, 1, &old);
      }
      const gaspi_return_t rc = k % 3 == 1 ? gaspi_write_notify(kSeg, 0, right, kSeg, 512, 256, 1, 1, 0, GASPI_TEST)
                                           : gaspi_write(kSeg, 1024, right, kSeg, 2048, 256, 0, GASPI_TEST);
      return rc == GASPI_QUEUE_FULL ? gaspi_wait(0, GASPI_BLOCK) : rc;
    });
    atomics.start([right, k = 0u]() mutable {
      gaspi_atomic_value_t old = 0;
      return ++k % 2 == 0 ? gaspi_atomic_fetch_add(kSeg, kAtomicOffset, right, 1, &old, GASPI_BLOCK)
                          : gaspi_atomic_compare_swap(kSeg, kAtomicOffset + 8, right, 0, 1, &old, GASPI_BLOCK);
    });
    reads.start([me, k = 0u]() mutable {
      if (++k % 2 == 0) {
        gaspi_notification_id_t first = 0;
        return gaspi_notify_waitsome(kSeg, 2, 4, &first, GASPI_TEST); // nobody sets them: a timeout
      }
      const gaspi_return_t rc = gaspi_read(kSeg, 8192, me, kSeg, 16384, 256, 1, GASPI_TEST);
      return rc == GASPI_QUEUE_FULL ? gaspi_wait(1, GASPI_BLOCK) : rc;
    });
    // A wait with a timeout meanwhile, which serves the atomics of other nodes' threads.
    for (Hammer *h : {&writes, &atomics, &reads})
      while (h->ok.load(std::memory_order_relaxed) < kWarm && h->last.load() == GASPI_SUCCESS) {
        gaspi_notification_id_t first = 0;
        MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kSeg, 6, 1, &first, 1));
      }
    for (Hammer *h : {&writes, &atomics, &reads})
      MR_EXPECT(GASPI_SUCCESS, static_cast<gaspi_return_t>(h->last.load())); // nothing failed while up
    g_phase.store(paused);
    for (Hammer *h : {&writes, &atomics, &reads})
      while (!h->resting.load())
        std::this_thread::yield();
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    g_phase.store(terming);
    for (Hammer *h : {&writes, &atomics, &reads}) { // each calls again before term begins
      const unsigned long before = h->calls.load();
      while (h->calls.load() == before)
        std::this_thread::yield();
    }
    MR_OK(gaspi_proc_term(GASPI_BLOCK));
    for (Hammer *h : {&writes, &atomics, &reads}) {
      h->thread.join();
      MR_EXPECT(GASPI_ERR_NOINIT, static_cast<gaspi_return_t>(h->last.load()));
    }
    g_phase.store(up);
  }
  std::printf("SUCCESS mr_term_race\n");
  return 0;
}
