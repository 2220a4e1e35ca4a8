// Statistics counters (spec §14.1): the table, the storage and the out-of-line counting paths.
#include "core/statistics.hpp"

#include <array>
#include <memory>

namespace hygaspi::stats {

std::atomic<std::uint32_t> g_level{0};

namespace {

constexpr std::array<CounterInfo, counter_count> kTable{{
    {"bytes_written", "bytes written to the rank (gaspi_write, _notify, _list, _list_notify)",
     GASPI_STATISTIC_ARGUMENT_RANK, 1},
    {"bytes_read", "bytes read from the rank (gaspi_read, _notify, _list, _list_notify)", GASPI_STATISTIC_ARGUMENT_RANK,
     1},
    {"ops_posted", "successful queue posts targeting the rank (each write, read, notify or list call counts once)",
     GASPI_STATISTIC_ARGUMENT_RANK, 1},
    {"atomic_ops", "global atomic operations (fetch_add, compare_swap) issued to the rank",
     GASPI_STATISTIC_ARGUMENT_RANK, 1},
    {"passive_bytes_sent", "bytes sent to the rank with gaspi_passive_send", GASPI_STATISTIC_ARGUMENT_RANK, 1},
    {"queue_full", "posts refused with GASPI_QUEUE_FULL", GASPI_STATISTIC_ARGUMENT_NONE, 1},
    {"wait_time_us", "microseconds spent in gaspi_wait", GASPI_STATISTIC_ARGUMENT_NONE, 2},
    {"notify_wait_time_us", "microseconds spent in gaspi_notify_waitsome", GASPI_STATISTIC_ARGUMENT_NONE, 2},
    {"collective_time_us", "microseconds spent in gaspi_barrier, gaspi_allreduce and gaspi_allreduce_user",
     GASPI_STATISTIC_ARGUMENT_NONE, 2},
}};

// Per-rank counters: kRankCounters rows of nranks entries. Sized at gaspi_proc_init and kept
// after gaspi_proc_term, so a program can read its counters after the run.
std::unique_ptr<std::atomic<std::uint64_t>[]> g_ranks;
std::uint32_t g_nranks = 0;
// Counters without argument; the times are kept in nanoseconds and reported in microseconds.
std::array<std::atomic<std::uint64_t>, counter_count> g_scalar{};

std::atomic<std::uint64_t> *rank_slot(Counter c, std::uint32_t rank) noexcept {
  return rank < g_nranks ? &g_ranks[std::size_t{c} * g_nranks + rank] : nullptr;
}

} // namespace

const CounterInfo &info(Counter c) noexcept { return kTable[c]; }

void add(Counter c, std::uint32_t rank, std::uint64_t value) noexcept {
  std::atomic<std::uint64_t> *slot = c < kRankCounters ? rank_slot(c, rank) : &g_scalar[c];
  if (slot != nullptr)
    slot->fetch_add(value, std::memory_order_relaxed);
}

void add_time(Counter c, std::chrono::steady_clock::time_point since) noexcept {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since);
  g_scalar[c].fetch_add(static_cast<std::uint64_t>(ns.count()), std::memory_order_relaxed);
}

void count_post(std::uint32_t rank, std::uint64_t bytes, Kind kind) noexcept {
  if (kind == write)
    add(bytes_written, rank, bytes);
  else if (kind == read)
    add(bytes_read, rank, bytes);
  add(ops_posted, rank, 1);
}

void count_post_list(std::uint32_t rank, std::uint32_t num, const gaspi_size_t *sizes, Kind kind) noexcept {
  std::uint64_t bytes = 0;
  for (std::uint32_t i = 0; i < num; ++i)
    bytes += sizes[i];
  count_post(rank, bytes, kind);
}

void start(std::uint32_t nranks) {
  if (nranks != g_nranks) {
    g_ranks = std::make_unique<std::atomic<std::uint64_t>[]>(std::size_t{kRankCounters} * nranks);
    g_nranks = nranks;
  }
  for (std::uint32_t c = 0; c < counter_count; ++c)
    reset(c);
}

void set_level(std::uint32_t level) noexcept { g_level.store(level, std::memory_order_relaxed); }

bool get(std::uint32_t counter, std::uint32_t argument, std::uint64_t &value) noexcept {
  if (counter >= counter_count)
    return false;
  const auto c = static_cast<Counter>(counter);
  if (c < kRankCounters) {
    const std::atomic<std::uint64_t> *slot = rank_slot(c, argument);
    if (slot == nullptr)
      return false;
    value = slot->load(std::memory_order_relaxed);
  } else {
    value = g_scalar[c].load(std::memory_order_relaxed);
    if (c == wait_us || c == notify_wait_us || c == collective_us)
      value /= 1000;
  }
  return true;
}

bool reset(std::uint32_t counter) noexcept {
  if (counter >= counter_count)
    return false;
  const auto c = static_cast<Counter>(counter);
  if (c < kRankCounters)
    for (std::uint32_t r = 0; r < g_nranks; ++r)
      rank_slot(c, r)->store(0, std::memory_order_relaxed);
  else
    g_scalar[c].store(0, std::memory_order_relaxed);
  return true;
}

} // namespace hygaspi::stats
