// Rank-prefixed diagnostics. Every rejected call logs once, at the place that detects the
// problem, as "[hygaspi rank R] gaspi_write: remote offset 4096 + size 8 beyond segment 3 (4096 B)".
#pragma once
#include <atomic>
#include <cstdarg>

namespace hygaspi::log {

enum class Level : int { none = 0, error = 1, warn = 2, debug = 3 };

void set_rank(int rank) noexcept; // -1 before init
void set_level(Level level) noexcept;
[[nodiscard]] bool enabled(Level level) noexcept;

void error(const char *where, const char *fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
void warn(const char *where, const char *fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
// What the user must hear about although nothing failed (a configuration value overruled): printed
// at the default level, like errors, with a "note: " tag.
void notice(const char *where, const char *fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
void debug(const char *where, const char *fmt, ...) noexcept __attribute__((format(printf, 2, 3)));

} // namespace hygaspi::log
