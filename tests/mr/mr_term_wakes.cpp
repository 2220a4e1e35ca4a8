// gaspi_proc_term while other threads of the rank are blocked in GASPI_BLOCK waits: term must never
// crash on the memory it tears down. It wakes waits on notifications and collectives with an error;
// gaspi_passive_receive stays blocked until the process ends, as with GPI-2.
//
// Every rank starts two threads, one in gaspi_passive_receive(GASPI_BLOCK) and one in
// gaspi_notify_waitsome(GASPI_BLOCK) on a notification nobody sets. Once both sleep (their state in
// /proc/self/task/<tid>/stat is 'S', so they are inside the wait, not before it), the main thread
// calls gaspi_proc_term. The waitsome must return GASPI_ERROR, the receive must still sleep, and
// the rank must then init and term once more (the threads left nothing behind). Rank 0 prints "SUCCESS mr_term_wakes".
// Where rank 1 shares rank 0's node, rank 0 also has a thread in gaspi_barrier(GASPI_BLOCK) on a
// group {0, 1} that rank 1 never enters: term must wake a collective too.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sched.h>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;

// True once thread `tid` sleeps in the kernel.
bool sleeping(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'S';
}

struct Blocked {
  std::atomic<pid_t> tid{0};
  std::atomic<int> rc{-100};
  std::thread thread;

  template <class Call> void start(Call call) {
    thread = std::thread([this, call] {
      tid.store(static_cast<pid_t>(syscall(SYS_gettid)));
      rc.store(call());
    });
  }
  // Waits until the thread sleeps inside its call (or has returned, which the caller checks).
  void wait_asleep() {
    while (tid.load() == 0)
      sched_yield();
    while (rc.load() == -100 && !sleeping(tid.load()))
      sched_yield();
  }
};

} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_segment_create(kSeg, 1 << 16, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // Ranks 0 and 1 on one node: a group of the two, whose barrier only rank 0 enters.
  gaspi_rank_t local_num = 0;
  MR_OK(gaspi_proc_local_num(&local_num));
  const bool pair = n >= 2 && local_num >= 2 && me <= 1;
  gaspi_group_t group = 0;
  if (pair) {
    MR_OK(gaspi_group_create(&group));
    MR_OK(gaspi_group_add(group, 0));
    MR_OK(gaspi_group_add(group, 1));
    MR_OK(gaspi_group_commit(group, GASPI_BLOCK));
  }
  Blocked receive, waitsome, barrier;
  receive.start([] {
    gaspi_rank_t from = 0;
    return gaspi_passive_receive(kSeg, 0, &from, 64, GASPI_BLOCK);
  });
  waitsome.start([] {
    gaspi_notification_id_t id = 0;
    return gaspi_notify_waitsome(kSeg, 7, 1, &id, GASPI_BLOCK);
  });
  if (pair && me == 0)
    barrier.start([group] { return gaspi_barrier(group, GASPI_BLOCK); });
  receive.wait_asleep();
  waitsome.wait_asleep();
  MR_CHECK(receive.rc.load() == -100 && waitsome.rc.load() == -100); // nothing arrives, nothing dies
  if (barrier.thread.joinable()) {
    barrier.wait_asleep();
    MR_CHECK(barrier.rc.load() == -100);
  }

  // Every rank's threads sleep before anyone terms (under mpirun, term is collective anyway).
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  waitsome.thread.join();
  std::printf("rank %u: notify_waitsome -> %s\n", me, gaspi_error_str(static_cast<gaspi_return_t>(waitsome.rc.load())));
  MR_CHECK(waitsome.rc.load() == GASPI_ERROR);
  // gaspi_passive_receive(GASPI_BLOCK) stays blocked through term, as with GPI-2: clients treat
  // its error as fatal (the GASPI tutorials' negotiate_remote_offset exits 1), so it must not
  // return; the process ends with main's code, the thread still asleep (checked again below).
  // Term woke it to say so: it may not be back asleep yet (seen under TSan), so wait for that.
  receive.wait_asleep();
  MR_CHECK(receive.rc.load() == -100);
  if (barrier.thread.joinable()) {
    barrier.thread.join();
    std::printf("rank %u: barrier -> %s\n", me, gaspi_error_str(static_cast<gaspi_return_t>(barrier.rc.load())));
    MR_CHECK(barrier.rc.load() == GASPI_ERROR);
  }

  // A second life works: the woken threads left no state behind.
  MR_OK(gaspi_proc_init(GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  MR_CHECK(receive.rc.load() == -100 && sleeping(receive.tid.load()));
  receive.thread.detach(); // blocked until the process ends
  if (me == 0)
    std::printf("SUCCESS mr_term_wakes\n");
  return 0;
}
