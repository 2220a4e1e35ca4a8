// Segments (spec §7). Every segment is a shm object holding its notification array and, unless
// it is bound user memory, its data; node peers map it lazily on first access.
#include <algorithm>
#include <array>
#include <vector>

#include "GASPI_Ext.h"
#include "gaspi/group_ops.hpp"
#include "gaspi/checks.hpp"

using namespace hygaspi;

namespace {

constexpr gaspi_alloc_t kKnownPolicies = GASPI_MEM_INITIALIZED | GASPI_ALLOC_NUMA_LOCAL | GASPI_ALLOC_NUMA_INTERLEAVE;

// GASPI_ALLOC_NUMA_LOCAL and GASPI_ALLOC_NUMA_INTERLEAVE place the same pages two ways.
gaspi_return_t check_numa_policy(gaspi_alloc_t policy) {
  constexpr gaspi_alloc_t both = GASPI_ALLOC_NUMA_LOCAL | GASPI_ALLOC_NUMA_INTERLEAVE;
  HYGASPI_CHECK((policy & both) != both, GASPI_ERROR,
                "GASPI_ALLOC_NUMA_LOCAL and GASPI_ALLOC_NUMA_INTERLEAVE exclude each other");
  return GASPI_SUCCESS;
}

// A memory description (GASPI_Ext.h, "Device segments"): host memory, or the CUDA device `ordinal`.
struct Placement {
  int cuda_ordinal = -1;
};
gaspi_return_t describe(gaspi_memory_description_t description, Placement &out) {
  const auto d = static_cast<std::uint32_t>(description);
  if ((d & HYGASPI_MEMORY_CLASS_BIT) == 0)
    return GASPI_SUCCESS; // host memory (GPI-2 ignores the argument)
  const std::uint32_t memory_class = (d & ~static_cast<std::uint32_t>(HYGASPI_MEMORY_CLASS_BIT)) >> 16;
  HYGASPI_CHECK(memory_class == HYGASPI_MEMORY_CLASS_CUDA, GASPI_ERROR,
                "memory description %#x names memory class %u, which this build does not serve (CUDA is %d)", d,
                memory_class, HYGASPI_MEMORY_CLASS_CUDA);
  out.cuda_ordinal = static_cast<int>(d & 0xffffu);
  return GASPI_SUCCESS;
}

gaspi_return_t allocate(gaspi_segment_id_t seg, gaspi_size_t size, void *user_memory,
                        gaspi_alloc_t alloc_policy = GASPI_ALLOC_DEFAULT, Placement memory = {}) {
  HYGASPI_TRY(check::init());
  HYGASPI_TRY(check::segment_id(seg));
  HYGASPI_CHECK(size > 0, GASPI_ERR_INV_SEGSIZE, "segment %u: size 0", seg);
  std::uintptr_t user_end = 0; // bound memory must not wrap around the address space
  HYGASPI_CHECK(user_memory == nullptr ||
                    !__builtin_add_overflow(reinterpret_cast<std::uintptr_t>(user_memory), size - 1, &user_end),
                GASPI_ERR_INV_SEGSIZE, "segment %u: %lu bytes at %p wrap around the address space", seg,
                static_cast<unsigned long>(size), user_memory);
  const gaspi_number_t notifications = gaspi::state().config.notification_num;
  if (memory.cuda_ordinal >= 0)
    return engine::bind_device_segment(seg, size, notifications, user_memory, memory.cuda_ordinal);
  return engine::allocate_segment(seg, size, notifications, user_memory, alloc_policy);
}

gaspi_return_t collective(gaspi_segment_id_t seg, gaspi_size_t size, void *user_memory, gaspi_group_t group,
                          gaspi_timeout_t timeout, gaspi_alloc_t alloc_policy = GASPI_ALLOC_DEFAULT,
                          Placement memory = {}) {
  InFlight call; // gaspi_proc_term in another thread wakes it (gaspi/checks.hpp)
  HYGASPI_TRY(call.status());
  HYGASPI_TRY(check::segment_id(seg));
  HYGASPI_TRY(check_committed_group(group));
  if (!engine::segment_pending(seg)) {
    HYGASPI_TRY(allocate(seg, size, user_memory, alloc_policy, memory));
    for (gaspi_rank_t member : gaspi::state().groups.groups[group].members)
      HYGASPI_TRY(engine::register_segment(seg, GlobalRank{member}));
    engine::set_segment_pending(seg, true);
  }
  // The barrier makes sure every member's segment exists and is registered before anyone returns.
  gaspi_return_t rc = group_barrier(group, timeout);
  if (rc != GASPI_TIMEOUT)
    engine::set_segment_pending(seg, false);
  // Every member has made its segment in this call: a window of its own fits. MPI_Win_create is
  // collective and blocks, so only once the barrier is passed; a member whose barrier answered
  // GASPI_TIMEOUT comes back (the spec asks for the call again) and joins. Client memory keeps
  // the dynamic window (mpi_rma/rma.hpp).
  if (rc == GASPI_SUCCESS && user_memory == nullptr && memory.cuda_ordinal < 0) {
    const auto &members = gaspi::state().groups.groups[group].members;
    std::vector<GlobalRank> ranks(members.begin(), members.end());
    rc = engine::open_segment_window(seg, ranks);
  }
  return rc;
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_segment_alloc(const gaspi_segment_id_t segment_id, const gaspi_size_t size,
                                    const gaspi_alloc_t alloc_policy) {
  return guarded("gaspi_segment_alloc", [&] {
    HYGASPI_CHECK((alloc_policy & ~kKnownPolicies) == 0, GASPI_ERROR, "unknown allocation policy %lu", alloc_policy);
    HYGASPI_TRY(check_numa_policy(alloc_policy));
    // A new shm object is zero-filled, so GASPI_MEM_INITIALIZED costs nothing extra.
    return allocate(segment_id, size, nullptr, alloc_policy);
  });
}

gaspi_return_t pgaspi_segment_register(const gaspi_segment_id_t segment_id, const gaspi_rank_t rank,
                                       const gaspi_timeout_t) {
  return guarded("gaspi_segment_register", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::rank(rank));
    const SegmentView *seg = nullptr;
    HYGASPI_TRY(check::local_segment(segment_id, 0, 0, seg));
    return engine::register_segment(segment_id, GlobalRank{rank});
  });
}

gaspi_return_t pgaspi_segment_create(const gaspi_segment_id_t segment_id, const gaspi_size_t size,
                                     const gaspi_group_t group, const gaspi_timeout_t timeout,
                                     const gaspi_alloc_t alloc_policy) {
  return guarded("gaspi_segment_create", [&] {
    HYGASPI_CHECK((alloc_policy & ~kKnownPolicies) == 0, GASPI_ERROR, "unknown allocation policy %lu", alloc_policy);
    HYGASPI_TRY(check_numa_policy(alloc_policy));
    return collective(segment_id, size, nullptr, group, timeout, alloc_policy);
  });
}

gaspi_return_t pgaspi_segment_bind(const gaspi_segment_id_t segment_id, const gaspi_pointer_t pointer,
                                   const gaspi_size_t size, const gaspi_memory_description_t memory_description) {
  return guarded("gaspi_segment_bind", [&] {
    HYGASPI_TRY(check::not_null(pointer, "pointer"));
    Placement memory;
    HYGASPI_TRY(describe(memory_description, memory));
    return allocate(segment_id, size, pointer, GASPI_ALLOC_DEFAULT, memory);
  });
}

gaspi_return_t pgaspi_segment_use(const gaspi_segment_id_t segment_id, const gaspi_pointer_t pointer,
                                  const gaspi_size_t size, const gaspi_group_t group, const gaspi_timeout_t timeout,
                                  const gaspi_memory_description_t memory_description) {
  return guarded("gaspi_segment_use", [&] {
    HYGASPI_TRY(check::not_null(pointer, "pointer"));
    Placement memory;
    HYGASPI_TRY(describe(memory_description, memory));
    return collective(segment_id, size, pointer, group, timeout, GASPI_ALLOC_DEFAULT, memory);
  });
}

gaspi_return_t pgaspi_segment_delete(const gaspi_segment_id_t segment_id) {
  return guarded("gaspi_segment_delete", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::segment_id(segment_id));
    return engine::delete_segment(segment_id);
  });
}

gaspi_return_t pgaspi_segment_num(gaspi_number_t *const segment_num) {
  return guarded("gaspi_segment_num", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(segment_num, "segment_num"));
    gaspi_number_t n = 0;
    for (std::uint32_t s = 0; s < limits::kMaxSegments; ++s)
      n += engine::local_segment(s) != nullptr ? 1 : 0;
    *segment_num = n;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_segment_list(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_list) {
  return guarded("gaspi_segment_list", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(segment_id_list, "segment_id_list"));
    gaspi_number_t n = 0;
    for (std::uint32_t s = 0; s < limits::kMaxSegments && n < num; ++s)
      if (engine::local_segment(s) != nullptr)
        segment_id_list[n++] = static_cast<gaspi_segment_id_t>(s);
    // Spec §7.4.2: `num` is the "number of segment IDs to collect"; fewer than the rank has is a
    // prefix of the list, more cannot be collected (GPI-2: GASPI_ERROR). The ids found are written.
    HYGASPI_CHECK(n == num, GASPI_ERROR, "asked for %u segment ids, this rank has %u (gaspi_segment_num)", num, n);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_segment_ptr(const gaspi_segment_id_t segment_id, gaspi_pointer_t *ptr) {
  return guarded("gaspi_segment_ptr", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(ptr, "ptr"));
    const SegmentView *seg = nullptr;
    HYGASPI_TRY(check::local_segment(segment_id, 0, 0, seg));
    *ptr = seg->data;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_segment_avail_local(gaspi_segment_id_t *const avail_seg_id) {
  return guarded("gaspi_segment_avail_local", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(avail_seg_id, "avail_seg_id"));
    for (std::uint32_t s = 0; s < gaspi::state().config.segment_max; ++s)
      if (engine::local_segment(s) == nullptr) {
        *avail_seg_id = static_cast<gaspi_segment_id_t>(s);
        return GASPI_SUCCESS;
      }
    log::error("all %u segment ids are in use", gaspi::state().config.segment_max);
    return GASPI_ERR_MANY_SEG;
  });
}

gaspi_return_t pgaspi_segment_size(const gaspi_segment_id_t segment_id, const gaspi_rank_t rank,
                                   gaspi_size_t *const size) {
  return guarded("gaspi_segment_size", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(size, "size"));
    HYGASPI_TRY(check::rank(rank));
    engine::Target seg;
    HYGASPI_TRY(check::remote_segment(rank, segment_id, 0, 0, seg));
    *size = seg.size();
    return GASPI_SUCCESS;
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_segment_alloc)
HYGASPI_ALIAS(gaspi_segment_register)
HYGASPI_ALIAS(gaspi_segment_create)
HYGASPI_ALIAS(gaspi_segment_bind)
HYGASPI_ALIAS(gaspi_segment_use)
HYGASPI_ALIAS(gaspi_segment_delete)
HYGASPI_ALIAS(gaspi_segment_num)
HYGASPI_ALIAS(gaspi_segment_list)
HYGASPI_ALIAS(gaspi_segment_ptr)
HYGASPI_ALIAS(gaspi_segment_avail_local)
HYGASPI_ALIAS(gaspi_segment_size)
