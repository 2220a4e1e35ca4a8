#include "core/log.hpp"

#include <cstdio>
#include <unistd.h>

namespace hygaspi::log {
namespace {
std::atomic<int> g_rank{-1};
std::atomic<int> g_level{static_cast<int>(Level::error)};

void emit(const char *tag, const char *where, const char *fmt, va_list ap) noexcept {
  char line[1024];
  int rank = g_rank.load(std::memory_order_relaxed);
  int n = rank >= 0
              ? std::snprintf(line, sizeof line, "[hygaspi rank %d] %s%s: ", rank, tag, where)
              : std::snprintf(line, sizeof line, "[hygaspi pid %d] %s%s: ", static_cast<int>(getpid()), tag, where);
  if (n < 0 || static_cast<size_t>(n) >= sizeof line)
    return;
  int m = std::vsnprintf(line + n, sizeof line - n, fmt, ap);
  size_t len = m < 0 ? static_cast<size_t>(n) : std::min(sizeof line - 2, static_cast<size_t>(n + m));
  line[len] = '\n';
  // One write(2) per message keeps lines of concurrent ranks and threads whole.
  (void)!::write(STDERR_FILENO, line, len + 1);
}
} // namespace

void set_rank(int rank) noexcept { g_rank.store(rank, std::memory_order_relaxed); }
void set_level(Level level) noexcept { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }
bool enabled(Level level) noexcept { return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed); }

#define HYGASPI_LOG_FN(name, lvl, tag)                                                                                 \
  void name(const char *where, const char *fmt, ...) noexcept {                                                        \
    if (!enabled(lvl))                                                                                                 \
      return;                                                                                                          \
    va_list ap;                                                                                                        \
    va_start(ap, fmt);                                                                                                 \
    emit(tag, where, fmt, ap);                                                                                         \
    va_end(ap);                                                                                                        \
  }
HYGASPI_LOG_FN(error, Level::error, "")
HYGASPI_LOG_FN(warn, Level::warn, "warning: ")
HYGASPI_LOG_FN(notice, Level::error, "note: ")
HYGASPI_LOG_FN(debug, Level::debug, "debug: ")
#undef HYGASPI_LOG_FN

} // namespace hygaspi::log
