#include "gaspi/calls.hpp"

#include "core/call_gate.hpp"

namespace hygaspi::calls {

void join_thread() noexcept {
  gaspi_hyg_atomic_target_t &t = mine();
  if (t.joined != 0)
    return;
  call_gate::join(&t.calls);
  t.joined = 1;
}

void wait_for_other_threads(void (*nudge)() noexcept) noexcept { call_gate::wait_until_outside(&mine().calls, nudge); }

} // namespace hygaspi::calls
