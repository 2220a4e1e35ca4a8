// A segment as a front end sees it in this process: its size, its notification array, and where
// its bytes are. The engine hands out views of its own segments and of the node peers' segments it
// maps (bridge/engine.hpp); which transport made them is not part of the view.
#pragma once
#include <cstdint>

namespace hygaspi {

struct SegmentView {
  std::uint64_t generation = 0; // the owner's: a re-created segment has a new one
  std::uint64_t size = 0;
  std::uint32_t notification_num = 0;
  std::uint32_t *notifications = nullptr; // in shm
  char *data = nullptr;                   // nullptr: this process cannot address the bytes (a node peer's bound memory)
};

} // namespace hygaspi
