// Allreduce (spec §11.3) and user-defined allreduce (spec §11.4): the argument checks and the
// combine functions; the hierarchical step machine is the engine group's (bridge/engine_groups.hpp). Both are
// resumable after GASPI_TIMEOUT; GASPI_TEST makes one step. A barrier may run beside an allreduce
// on the same group: they keep separate state.
#include <algorithm>
#include <cstring>
#include <vector>

#include "bridge/engine_groups.hpp"
#include "core/statistics.hpp"
#include "gaspi/checks.hpp"
#include "gaspi/group_ops.hpp"
#include "gaspi/state.hpp"

using namespace hygaspi;

namespace {

template <class T> void combine_typed(gaspi_operation_t op, T *acc, const T *other, gaspi_number_t num) {
  switch (op) {
  case GASPI_OP_MIN:
    for (gaspi_number_t i = 0; i < num; ++i)
      acc[i] = std::min(acc[i], other[i]);
    break;
  case GASPI_OP_MAX:
    for (gaspi_number_t i = 0; i < num; ++i)
      acc[i] = std::max(acc[i], other[i]);
    break;
  case GASPI_OP_SUM:
    for (gaspi_number_t i = 0; i < num; ++i)
      acc[i] += other[i];
    break;
  }
}

struct Builtin {
  gaspi_operation_t op;
  gaspi_datatype_t type;
  gaspi_number_t num;
};

std::size_t type_size(gaspi_datatype_t type) {
  switch (type) {
  case GASPI_TYPE_INT:
    return sizeof(int);
  case GASPI_TYPE_UINT:
    return sizeof(unsigned int);
  case GASPI_TYPE_FLOAT:
    return sizeof(float);
  case GASPI_TYPE_DOUBLE:
    return sizeof(double);
  case GASPI_TYPE_LONG:
    return sizeof(long);
  case GASPI_TYPE_ULONG:
    return sizeof(unsigned long);
  }
  return 0;
}

gaspi_return_t combine_builtin(void *ctx, void *acc, const void *other) {
  const auto &b = *static_cast<const Builtin *>(ctx);
  switch (b.type) {
  case GASPI_TYPE_INT:
    combine_typed(b.op, static_cast<int *>(acc), static_cast<const int *>(other), b.num);
    break;
  case GASPI_TYPE_UINT:
    combine_typed(b.op, static_cast<unsigned *>(acc), static_cast<const unsigned *>(other), b.num);
    break;
  case GASPI_TYPE_FLOAT:
    combine_typed(b.op, static_cast<float *>(acc), static_cast<const float *>(other), b.num);
    break;
  case GASPI_TYPE_DOUBLE:
    combine_typed(b.op, static_cast<double *>(acc), static_cast<const double *>(other), b.num);
    break;
  case GASPI_TYPE_LONG:
    combine_typed(b.op, static_cast<long *>(acc), static_cast<const long *>(other), b.num);
    break;
  case GASPI_TYPE_ULONG:
    combine_typed(b.op, static_cast<unsigned long *>(acc), static_cast<const unsigned long *>(other), b.num);
    break;
  }
  return GASPI_SUCCESS;
}

struct User {
  gaspi_reduce_operation_t fn;
  gaspi_reduce_state_t state;
  gaspi_number_t num;
  gaspi_size_t element_size;
  gaspi_timeout_t timeout;
  std::vector<char> scratch;
};

// spec §11.4.2: the user function writes op1 (op) op2 to res; res is a separate buffer here.
gaspi_return_t combine_user(void *ctx, void *acc, const void *other) {
  auto &u = *static_cast<User *>(ctx);
  gaspi_return_t rc = u.fn(acc, const_cast<void *>(other), u.scratch.data(), u.state, u.num, u.element_size, u.timeout);
  if (rc != GASPI_SUCCESS) {
    log::error("the user's reduce operation returned %d", static_cast<int>(rc));
    return rc;
  }
  std::memcpy(acc, u.scratch.data(), u.scratch.size());
  return GASPI_SUCCESS;
}

gaspi_return_t run(gaspi_group_t group, const void *send, void *receive, std::size_t bytes, engine::Combine combine,
                   void *ctx, gaspi_timeout_t timeout) {
  HYGASPI_TRY(check_committed_group(group));
  gaspi::Group &g = gaspi::state().groups.groups[group];
  std::unique_lock lock(g.reducing, std::defer_lock);
  if (!lock_for(lock, timeout))
    return GASPI_TIMEOUT;
  HYGASPI_TRY(engine::check_not_broken(*g.engine));
  return engine::allreduce(*g.engine, send, receive, bytes, combine, ctx, Deadline(timeout));
}

} // namespace

namespace hygaspi {
// Both terms are at most INT_MAX (core/limits.hpp), so no product here can wrap.
std::uint64_t allreduce_slot_bytes() noexcept {
  return std::max<std::uint64_t>(std::uint64_t{gaspi::state().config.allreduce_elem_max} * sizeof(double),
                                 gaspi::state().config.allreduce_buf_size);
}
} // namespace hygaspi

extern "C" {

gaspi_return_t pgaspi_allreduce(gaspi_pointer_t const buffer_send, gaspi_pointer_t const buffer_receive,
                                const gaspi_number_t num, const gaspi_operation_t operation,
                                const gaspi_datatype_t datatype, const gaspi_group_t group,
                                const gaspi_timeout_t timeout) {
  return guarded("gaspi_allreduce", [&] {
    stats::Timer timer(stats::collective_us);
    InFlight call; // gaspi_proc_term in another thread wakes it (gaspi/checks.hpp)
    HYGASPI_TRY(call.status());
    HYGASPI_TRY(check::not_null(buffer_send, "buffer_send"));
    HYGASPI_TRY(check::not_null(buffer_receive, "buffer_receive"));
    HYGASPI_CHECK(num > 0 && num <= gaspi::state().config.allreduce_elem_max, GASPI_ERR_INV_NUM,
                  "%u elements outside [1, allreduce_elem_max=%u]", num, gaspi::state().config.allreduce_elem_max);
    HYGASPI_CHECK(operation >= GASPI_OP_MIN && operation <= GASPI_OP_SUM, GASPI_ERROR, "unknown operation %d",
                  static_cast<int>(operation));
    HYGASPI_CHECK(datatype >= GASPI_TYPE_INT && datatype <= GASPI_TYPE_ULONG, GASPI_ERROR, "unknown datatype %d",
                  static_cast<int>(datatype));
    Builtin ctx{operation, datatype, num};
    // num <= allreduce_elem_max <= INT_MAX / 8 (core/limits.hpp), so this fits the reduce slot.
    return run(group, buffer_send, buffer_receive, std::size_t{num} * type_size(datatype), combine_builtin, &ctx,
               timeout);
  });
}

gaspi_return_t pgaspi_allreduce_user(gaspi_pointer_t const buffer_send, gaspi_pointer_t const buffer_receive,
                                     const gaspi_number_t num, const gaspi_size_t element_size,
                                     gaspi_reduce_operation_t const reduce_operation,
                                     gaspi_reduce_state_t const reduce_state, const gaspi_group_t group,
                                     const gaspi_timeout_t timeout) {
  return guarded("gaspi_allreduce_user", [&] {
    stats::Timer timer(stats::collective_us);
    InFlight call; // gaspi_proc_term in another thread wakes it (gaspi/checks.hpp)
    HYGASPI_TRY(call.status());
    HYGASPI_TRY(check::not_null(buffer_send, "buffer_send"));
    HYGASPI_TRY(check::not_null(buffer_receive, "buffer_receive"));
    HYGASPI_CHECK(reduce_operation != nullptr, GASPI_ERR_NULLPTR, "reduce_operation is NULL");
    gaspi_size_t bytes = 0; // num * element_size may wrap around 2^64: checked, never assumed
    HYGASPI_CHECK(num > 0 && element_size > 0 && !__builtin_mul_overflow(gaspi_size_t{num}, element_size, &bytes) &&
                      bytes <= gaspi::state().config.allreduce_buf_size,
                  GASPI_ERR_INV_SIZE, "%u elements of %lu bytes outside [1, allreduce_buf_size=%lu] bytes", num,
                  element_size, gaspi::state().config.allreduce_buf_size);
    User ctx{reduce_operation, reduce_state, num, element_size, timeout, std::vector<char>(bytes)};
    return run(group, buffer_send, buffer_receive, bytes, combine_user, &ctx, timeout);
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_allreduce)
HYGASPI_ALIAS(gaspi_allreduce_user)
