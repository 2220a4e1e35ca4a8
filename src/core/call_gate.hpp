// Threads inside library calls, and how an ending life waits for them.
//
// The fast paths of the data calls (a GASPI write or atomic to a node peer: a few ns) cannot afford
// a shared atomic counter, yet gaspi_proc_term in another thread unmaps what they write into. So each
// thread keeps its own count of such calls under way, in its own thread-local word, and says where
// that word is once (join). A call raises it, then reads whether the library is still up; the
// ending life first says it is down, then waits until every joined thread's count is 0. The two
// sides form a Dekker pair. The call side has only a compiler fence between its store and its load:
// the ending side pays for both, with a membarrier(2) that makes every other running thread of the
// process execute a full memory barrier (the asymmetric fence that userspace RCU uses). After it,
// either the call saw "down" and took its full path, or its raised count is visible here.
#pragma once

namespace hygaspi::call_gate {

// Registers the calling thread's count (a word in its thread-local storage, which the thread alone
// writes) until the thread ends. Once per thread; not on a fast path.
void join(const unsigned *count) noexcept;

// For the ending side, after it published that the library is down: fences every thread of the
// process, then waits until every joined count but `self` (the caller's own, or nullptr) is 0.
// `nudge` (when given) runs before each nap of the wait: it wakes calls that went to sleep.
void wait_until_outside(const unsigned *self, void (*nudge)() noexcept = nullptr) noexcept;

} // namespace hygaspi::call_gate
