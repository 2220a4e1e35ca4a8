// Calls that issue #3 completes (passive communication §9). Until then
// they are declared and exported, and they fail with a clear message instead of a link error.
#include "bridge/runtime.hpp"

using namespace hygaspi;

namespace {
gaspi_return_t not_yet(const char* fn) {
  log::error(fn, "not implemented in this version of HyGASPI");
  return GASPI_ERROR;
}
}  // namespace

extern "C" {

gaspi_return_t pgaspi_passive_send(const gaspi_segment_id_t, const gaspi_offset_t, const gaspi_rank_t,
                                   const gaspi_size_t, const gaspi_timeout_t) {
  return not_yet("gaspi_passive_send");
}
gaspi_return_t pgaspi_passive_receive(const gaspi_segment_id_t, const gaspi_offset_t, gaspi_rank_t* const,
                                      const gaspi_size_t, const gaspi_timeout_t) {
  return not_yet("gaspi_passive_receive");
}
gaspi_return_t pgaspi_passive_queue_purge(const gaspi_timeout_t) { return not_yet("gaspi_passive_queue_purge"); }
}  // extern "C"

HYGASPI_ALIAS(gaspi_passive_send)
HYGASPI_ALIAS(gaspi_passive_receive)
HYGASPI_ALIAS(gaspi_passive_queue_purge)
