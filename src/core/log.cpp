#include "core/log.hpp"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace hygaspi::log {

constinit thread_local const char *detail::t_call __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {
std::atomic<int> g_rank{-1};
std::atomic<int> g_level{static_cast<int>(Level::error)};

void emit(const char *tag, const char *fmt, va_list ap) noexcept {
  char line[1024];
  int n = format_prefix(line, sizeof line, tag);
  if (n < 0)
    return;
  int m = std::vsnprintf(line + n, sizeof line - n, fmt, ap);
  size_t len = m < 0 ? static_cast<size_t>(n) : std::min(sizeof line - 2, static_cast<size_t>(n + m));
  line[len] = '\n';
  // One write(2) per message keeps lines of concurrent ranks and threads whole.
  (void)!::write(STDERR_FILENO, line, len + 1);
}
} // namespace

int format_prefix(char *buf, std::size_t size, const char *tag) noexcept {
  const int rank = g_rank.load(std::memory_order_relaxed);
  const char *call = current_call();
  int n = rank >= 0 ? std::snprintf(buf, size, "[hygaspi rank %d] %s%s: ", rank, tag, call)
                    : std::snprintf(buf, size, "[hygaspi pid %d] %s%s: ", static_cast<int>(getpid()), tag, call);
  return n < 0 || static_cast<std::size_t>(n) >= size ? -1 : n;
}

void set_rank(int rank) noexcept { g_rank.store(rank, std::memory_order_relaxed); }
void set_level(Level level) noexcept { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }
bool enabled(Level level) noexcept { return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed); }

#define HYGASPI_LOG_FN(name, lvl, tag)                                                                                 \
  void name(const char *fmt, ...) noexcept {                                                                           \
    if (!enabled(lvl))                                                                                                 \
      return;                                                                                                          \
    va_list ap;                                                                                                        \
    va_start(ap, fmt);                                                                                                 \
    emit(tag, fmt, ap);                                                                                                \
    va_end(ap);                                                                                                        \
  }
HYGASPI_LOG_FN(error, Level::error, "")
HYGASPI_LOG_FN(warn, Level::warn, "warning: ")
HYGASPI_LOG_FN(notice, Level::error, "note: ")
HYGASPI_LOG_FN(debug, Level::debug, "debug: ")
#undef HYGASPI_LOG_FN

} // namespace hygaspi::log
