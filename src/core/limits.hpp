// Hard limits of this implementation. Configuration values above them are clamped (our reading
// of spec §5.2.1: values are proposals); the getters report what was granted.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hygaspi::limits {

inline constexpr std::uint32_t kMaxSegments = 256; // gaspi_segment_id_t is unsigned char
inline constexpr std::uint32_t kMaxGroups = 256;   // gaspi_group_t is unsigned char
inline constexpr std::uint32_t kMaxQueues = 16;    // as GPI-2 (GASPI_MAX_QP)
inline constexpr std::uint32_t kMaxQueueSize = 1u << 20;
inline constexpr std::uint32_t kMaxNotifications = 1u << 20;
inline constexpr std::uint64_t kMaxTransferSize = 1ull << 31; // 2 GiB per transfer
inline constexpr std::uint32_t kMaxRanks = 65535;             // gaspi_rank_t is unsigned short
inline constexpr std::uint32_t kMaxListElems = 65535;
inline constexpr std::uint32_t kMaxAllreduceElems = 65535;
inline constexpr std::uint64_t kMaxAllreduceBuf = 1ull << 20;
inline constexpr std::uint32_t kMaxPassiveQueueSize = 1u << 16;
inline constexpr std::uint64_t kMaxPassiveTransferSize = 1ull << 20;
inline constexpr std::uint32_t kBarrierRounds = 16; // ceil(log2(kMaxRanks))

// Separates hot atomics of different writers; a fixed value (STYLE.md habit 4).
inline constexpr std::size_t kCacheLine = 128;

} // namespace hygaspi::limits
