// The one internal error type (docs/DESIGN.md "Code conventions": errors travel as
// gaspi_return_t). Every layer returns a Status: GASPI_SUCCESS, GASPI_TIMEOUT, GASPI_ERROR or one
// of GPI-2's argument codes. The engine knows no other GASPI type; a front end other than GASPI
// (GASNet) maps these values onto its own codes in one place.
//
// Log once, at the place that detects the problem (the message names the call in progress:
// log::CallScope); every caller above only propagates with HYGASPI_TRY.
#pragma once
#include <GASPI.h>

namespace hygaspi {

using Status = gaspi_return_t;

} // namespace hygaspi

#define HYGASPI_TRY(expr)                                                                                              \
  do {                                                                                                                 \
    const ::hygaspi::Status hygaspi_rc_ = (expr);                                                                      \
    if (hygaspi_rc_ != GASPI_SUCCESS)                                                                                  \
      return hygaspi_rc_;                                                                                              \
  } while (0)
