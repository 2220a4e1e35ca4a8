// Every environment knob of HyGASPI lives in one table (STYLE.md: Sandia OpenSHMEM's
// shmem_env_defs.h). hygaspi-info prints it; init parses and validates it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hygaspi {

enum class KnobType { integer, boolean, string };

struct KnobInfo {
  const char *name;
  KnobType type;
  const char *default_value;
  const char *meaning;
};

// The table, terminated by a nullptr name.
const KnobInfo *knob_table() noexcept;

// Parsed values. Parsing fails with a message naming the knob and the bad value.
struct Knobs {
  std::string job;                      // HYGASPI_JOB: job id set by the launcher ("" = standalone)
  std::int64_t rank = 0;                // HYGASPI_RANK
  std::int64_t nranks = 1;              // HYGASPI_NRANKS
  std::int64_t launched_pid = 0;        // HYGASPI_PID: the process hygaspi-run started (0: unknown)
  std::int64_t spin = 2000;             // HYGASPI_SPIN: busy-poll iterations before yielding
  std::int64_t yields = 50;             // HYGASPI_YIELDS: sched_yield calls before sleeping on a futex
  std::int64_t log_level = 1;           // HYGASPI_LOG: 0 none, 1 errors, 2 warnings, 3 debug
  std::int64_t init_timeout_ms = 60000; // HYGASPI_INIT_TIMEOUT_MS
  std::int64_t node_size = 0;           // HYGASPI_NODE_SIZE: virtual nodes of k ranks (MPI jobs); 0 = real nodes
  bool shm = true;                      // HYGASPI_SHM: 0 sends everything through MPI
  std::int64_t progress_thread = -1;    // HYGASPI_PROGRESS_THREAD: -1 auto, 0 off, 1 on
  std::int64_t threads_pin = -1;        // HYGASPI_THREADS_PIN: gaspi_threads_run binding, -1 auto, 0 off, 1 on
  std::int64_t test_die_send = -1;      // HYGASPI_TEST_DIE_IN_PASSIVE_SEND: this rank dies in a send
};

// Parses a decimal integer in [lo, hi]; nullopt on any malformation.
std::optional<std::int64_t> parse_int(std::string_view text, std::int64_t lo, std::int64_t hi) noexcept;

// Reads the environment. Returns false and fills `error` on a malformed value.
bool read_knobs(Knobs &out, std::string &error);

} // namespace hygaspi
