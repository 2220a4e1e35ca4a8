// No MPI return code is dropped (ctest lint.mpi_checked enforces it). Every MPI call of
// the runtime goes through HYGASPI_MPI, which logs a failure once, naming the MPI function and
// MPI's own error string, and yields a gaspi_return_t: GASPI_SUCCESS or GASPI_ERROR.
//
//   HYGASPI_TRY(HYGASPI_MPI(MPI_Win_flush(rank, win)));       // propagate
//   (void)HYGASPI_MPI(MPI_Request_free(&request));            // teardown: logged, then ignored
//
// Our communicators keep MPI_ERRORS_RETURN (mpi_env.cpp), so an error reaches this check rather
// than aborting the job.
#pragma once
#include <GASPI.h>
#include <mpi.h>

#include "core/status.hpp"

namespace hygaspi::mpi {

// Logs "<call> failed: <MPI error string>" once and returns GASPI_ERROR. `call` may be the whole
// call's text: the message keeps it up to the first parenthesis (mpi_env.cpp).
[[gnu::cold]] gaspi_return_t fail(const char *call, int mpi_error) noexcept;

[[nodiscard]] inline gaspi_return_t checked(int code, const char *call) noexcept {
  if (__builtin_expect(code == MPI_SUCCESS, 1))
    return GASPI_SUCCESS;
  return fail(call, code);
}

} // namespace hygaspi::mpi

// The text of the call up to its first parenthesis names it in the message.
#define HYGASPI_MPI(call) ::hygaspi::mpi::checked((call), #call)
