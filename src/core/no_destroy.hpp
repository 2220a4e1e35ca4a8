// Process-wide state that outlives static destruction. A process may leave main (or call exit())
// while other threads are still inside calls: blocked in a receive, or communicating while another
// thread ends the job. Destroying their state under them would crash them, so such state is built
// at load time and never destroyed; the kernel reclaims it with the process.
#pragma once

namespace hygaspi {

template <class T> union NoDestroy {
  T value;
  NoDestroy() : value() {}
  ~NoDestroy() {}
  NoDestroy(const NoDestroy &) = delete;
  NoDestroy &operator=(const NoDestroy &) = delete;
};

} // namespace hygaspi
