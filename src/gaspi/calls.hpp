// Which GASPI calls a thread is inside, for gaspi_proc_term in another thread: it must not unmap a
// segment or free a table while a call still uses it. Every call counts itself in its thread's own
// word (gaspi_hyg_atomic_target_v2.calls, GASPI_inline.h): a fast path in a Section, a full path
// from its check::init() (or InFlight, for a call that may block) until guarded() returns, and the
// client's inline atomics around their access. Term wakes the calls that wait, fences every thread
// and waits until each word is 0 (core/call_gate.hpp). This costs a call two stores to a word of
// its own thread, where a shared counter would cost two atomic read-modify-writes on one line that
// every thread writes.
#pragma once
#include <GASPI.h>

namespace hygaspi::calls {

// Registers this thread's word with the call gate (core/call_gate.hpp), once per thread.
void join_thread() noexcept;

// For gaspi_proc_term, once `initialized` and the atomics' life say GASPI is down: waits until no
// other thread is inside a counted call, running `nudge` before each nap (it wakes waiting calls).
void wait_for_other_threads(void (*nudge)() noexcept) noexcept;

inline gaspi_hyg_atomic_target_t &mine() noexcept { return gaspi_hyg_atomic_target_v2; }

// One more call of this thread under way, before it reads `initialized`. A compiler fence suffices:
// term pays for the rest.
inline void enter() noexcept {
  gaspi_hyg_atomic_target_t &t = mine();
  if (__builtin_expect(t.joined == 0, 0))
    join_thread();
  __atomic_store_n(&t.calls, t.calls + 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
// Back to `count` calls, after the last access to what term tears down.
inline void restore(unsigned count) noexcept { __atomic_store_n(&mine().calls, count, __ATOMIC_RELEASE); }

// A fast path: counted for its scope.
class Section {
public:
  Section() noexcept { enter(); }
  ~Section() { restore(mine().calls - 1); }
  Section(const Section &) = delete;
  Section &operator=(const Section &) = delete;
};

// What guarded() holds: whatever check::init() raised inside the call is undone when it returns.
class Frame {
public:
  Frame() noexcept : count_(mine().calls) {}
  ~Frame() {
    if (mine().calls != count_)
      restore(count_);
  }
  Frame(const Frame &) = delete;
  Frame &operator=(const Frame &) = delete;

private:
  unsigned count_;
};

} // namespace hygaspi::calls
