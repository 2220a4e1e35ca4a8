// Reclaims shm objects that crashed jobs left in /dev/shm (the problem: a job started by mpirun has no
// launcher to sweep them). Every object name ends in "-p<pid>" of its owner; the job block
// ("hygaspi-<job>-job") holds the pids of its launcher and ranks. An object whose owner no longer
// exists, or a job block none of whose processes exists, is removed.
#pragma once
#include <cstddef>

namespace hygaspi::shm {

// Returns the number of objects removed. Objects of other users are skipped (we cannot open
// them, and they are not ours to judge).
std::size_t reclaim_stale_objects() noexcept;

} // namespace hygaspi::shm
