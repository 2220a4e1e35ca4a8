/*
 * GPI2_VERSION.h -- HyGASPI
 *
 * Version numbers of the GPI-2 interface that HyGASPI reproduces.
 * HyGASPI is a source-compatible replacement for GPI-2 1.6.0, so code that
 * tests these macros sees the same values as with GPI-2.
 */
#ifndef HYGASPI_GPI2_VERSION_H
#define HYGASPI_GPI2_VERSION_H

#define GASPI_MAJOR_VERSION 1
#define GASPI_MINOR_VERSION 6
#define GASPI_REVISION 0

#endif /* HYGASPI_GPI2_VERSION_H */
