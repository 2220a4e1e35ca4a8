// Rank-prefixed diagnostics. Every rejected call logs once, at the place that detects the
// problem, as "[hygaspi rank R] gaspi_write: remote offset 4096 + size 8 beyond segment 3 (4096 B)".
// The call's name comes from the thread's current CallScope, which each entry point opens: a callee
// never names the entry point, it only says which step failed.
#pragma once
#include <atomic>
#include <cstdarg>
#include <cstddef>

namespace hygaspi::log {

enum class Level : int { none = 0, error = 1, warn = 2, debug = 3 };

void set_rank(int rank) noexcept; // -1 before init
void set_level(Level level) noexcept;
[[nodiscard]] bool enabled(Level level) noexcept;

// The name a thread shows while no call is in progress (a CallScope can name a helper thread, as
// the MPI progress thread names itself "progress").
inline constexpr const char *kNoCall = "runtime";

namespace detail {
// initial-exec: one %fs-relative load, no __tls_get_addr, on every entry point.
extern constinit thread_local const char *t_call __attribute__((tls_model("initial-exec")));
} // namespace detail

// Names the call in progress on this thread for as long as it lives. The outermost scope wins: an
// entry point that calls another (gaspi_threads_init -> gaspi_threads_init_user) reports every
// message under the name the application called, and each scope restores what it found.
class CallScope {
public:
  explicit CallScope(const char *call) noexcept : previous_(detail::t_call) {
    if (previous_ == nullptr)
      detail::t_call = call;
  }
  ~CallScope() { detail::t_call = previous_; }
  CallScope(const CallScope &) = delete;
  CallScope &operator=(const CallScope &) = delete;

private:
  const char *previous_;
};

// The current call's name, or kNoCall.
[[nodiscard]] inline const char *current_call() noexcept {
  return detail::t_call != nullptr ? detail::t_call : kNoCall;
}

// Writes "[hygaspi rank R] <tag><current call>: " (or "[hygaspi pid P] ..." before init) into
// `buf` and returns its length, or -1 if it does not fit.
int format_prefix(char *buf, std::size_t size, const char *tag = "") noexcept;

void error(const char *fmt, ...) noexcept __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) noexcept __attribute__((format(printf, 1, 2)));
// What the user must hear about although nothing failed (a configuration value overruled): printed
// at the default level, like errors, with a "note: " tag.
void notice(const char *fmt, ...) noexcept __attribute__((format(printf, 1, 2)));
void debug(const char *fmt, ...) noexcept __attribute__((format(printf, 1, 2)));

} // namespace hygaspi::log
