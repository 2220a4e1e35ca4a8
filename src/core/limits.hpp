// Hard limits of this implementation. Configuration values are proposals (spec §5.2.1): we honour
// every value the machine can give and clamp only where a type width or the hardware cannot give
// it; the getters report what was granted, and gaspi_proc_init logs one line naming each value it
// overruled (core/config.hpp). No limit here is a policy of our own.
#pragma once
#include <climits>
#include <cstddef>
#include <cstdint>

namespace hygaspi::limits {

inline constexpr std::uint32_t kMaxSegments = 256; // gaspi_segment_id_t is unsigned char
// Segments of the engine's own, beyond every id a GASPI program can name (docs/DESIGN.md
// "Segments": what the runtime allocates is deterministic and reserved out of the user range): the
// GASNet front end's segment, every rank's message inbox (active and passive messages), the
// segments bound to GASNet-EX endpoints 1..kEndpointSegments (endpoint i's at kEndpointSegment0 +
// i - 1), and the staging buffer through which another node's device memory is reached
// (bridge/remote_device.cpp). Engine tables hold kSegmentSlots entries; GASPI sees kMaxSegments.
inline constexpr std::uint32_t kGasnetSegment = kMaxSegments;
inline constexpr std::uint32_t kInbox = kMaxSegments + 1; // bridge/am_channel.hpp
inline constexpr std::uint32_t kEndpointSegment0 = kMaxSegments + 2;
inline constexpr std::uint32_t kEndpointSegments = 32; // GASNET_MAXEPS - 1
inline constexpr std::uint32_t kDeviceStaging = kEndpointSegment0 + kEndpointSegments;
inline constexpr std::uint32_t kSegmentSlots = kDeviceStaging + 1;
inline constexpr std::uint32_t kMaxGroups = 256; // gaspi_group_t is unsigned char
// Group slots of the engine's own, beyond every gaspi_group_t (as kGasnetSegment is beyond every
// segment id): the GASNet-EX front end's teams take slots kMaxGroups..kGroupSlots-1, so a GASPI
// program's groups and EX teams live side by side in one process. Rank blocks hold kGroupSlots.
inline constexpr std::uint32_t kFrontEndGroups = 64;
inline constexpr std::uint32_t kGroupSlots = kMaxGroups + kFrontEndGroups;
inline constexpr std::uint32_t kMaxQueues = 16;                // gaspi_queue_max, as GPI-2 (GASPI_MAX_QP)
inline constexpr std::uint32_t kMaxQueueSize = UINT32_MAX;     // gaspi_number_t
inline constexpr std::uint32_t kMaxNotifications = UINT32_MAX; // gaspi_notification_id_t
inline constexpr std::uint64_t kMaxTransferSize = UINT64_MAX;  // MPI transfers move in chunks
inline constexpr std::uint32_t kMaxRanks = 65535;              // gaspi_rank_t is unsigned short
inline constexpr std::uint32_t kMaxListElems = UINT32_MAX;     // gaspi_number_t
// The leaders of an allreduce exchange the whole buffer in one MPI message, whose count is an int;
// the widest built-in element is 8 bytes.
inline constexpr std::uint64_t kMaxAllreduceBuf = INT_MAX;
inline constexpr std::uint32_t kMaxAllreduceElems = INT_MAX / 8;
inline constexpr std::uint32_t kMaxPassiveQueueSize = UINT32_MAX; // gaspi_number_t
// A passive message is one MPI message (int count) across nodes, and a slot's size field is 32 bits.
inline constexpr std::uint64_t kMaxPassiveTransferSize = INT_MAX;
inline constexpr std::uint32_t kBarrierRounds = 16; // ceil(log2(kMaxRanks))
// No shm object or mapping can exceed what off_t (fallocate, ftruncate) and ptrdiff_t can express.
inline constexpr std::uint64_t kMaxObjectBytes = PTRDIFF_MAX;

// Separates hot atomics of different writers; a fixed value, not hardware_destructive_interference_size,
// which varies between compilers (docs/DESIGN.md "Code conventions").
inline constexpr std::size_t kCacheLine = 128;

} // namespace hygaspi::limits
