// A segment as a front end sees it in this process: its size, its notification array, and where
// its bytes are and how they are reached. The engine hands out views of its own segments and of the
// node peers' segments it maps (bridge/engine.hpp); which transport made them is not part of the
// view.
#pragma once
#include <cstdint>

namespace hygaspi {

// Where a segment's bytes are, seen from this process.
enum class Memory : std::uint8_t {
  host,      // `data` is host memory mapped here: loads, stores, memcpy and CPU atomics
  peer_host, // a node peer's bound host memory, not mapped here (`data` is nullptr): cross-memory attach
  cuda,      // `data` is CUDA device memory in this process's unified address space (its own allocation,
             // or a node peer's opened through CUDA IPC): only the driver copies it, and no CPU atomic reaches it
};

struct SegmentView {
  std::uint64_t generation = 0; // the owner's: a re-created segment has a new one
  std::uint64_t size = 0;
  std::uint32_t notification_num = 0;
  std::uint32_t *notifications = nullptr; // in host shm, whatever the memory of the data
  char *data = nullptr;
  Memory memory = Memory::host;
  std::int32_t device = -1; // Memory::cuda: the ordinal of the device this process copies it with

  [[nodiscard]] bool host_mapped() const noexcept { return memory == Memory::host; }
};

} // namespace hygaspi
