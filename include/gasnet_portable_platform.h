/* gasnet_portable_platform.h: GASNet's uniform names for the compiler, operating system and CPU
 * family in use, for tests such as `#if PLATFORM_COMPILER_GNU && PLATFORM_ARCH_X86_64`. Included
 * by gasnet_tools.h. Each PLATFORM_<KIND>_<NAME> flag is defined to 1 when it holds and left
 * undefined otherwise (so `#if` reads it as 0). This file covers the platforms HyGASPI builds on
 * (Linux with GCC, Clang or Intel's compilers on x86, ARM and POWER); elsewhere the family names
 * say UNKNOWN. Pure preprocessor definitions: valid in C and C++. */
#ifndef GASNET_PORTABLE_PLATFORM_H
#define GASNET_PORTABLE_PLATFORM_H

/* ---- Compiler ------------------------------------------------------------------------------- */

/* Packs a version as one integer that compares in version order. */
#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) (((maj) << 16) | ((min) << 8) | (pat))

/* Family flag, its name (a bare token: _STRINGIFY it), a number per family (GASNet's numbering
 * for these three), and the version. Intel's and Clang's compilers also define __GNUC__, so
 * they are tested first. */
#if defined(__INTEL_COMPILER) || defined(__INTEL_LLVM_COMPILER)
#define PLATFORM_COMPILER_INTEL 1
#define PLATFORM_COMPILER_FAMILYNAME INTEL
#define PLATFORM_COMPILER_FAMILYID 2
#if defined(__INTEL_LLVM_COMPILER)
#define PLATFORM_COMPILER_VERSION                                                                                      \
  PLATFORM_COMPILER_VERSION_INT(__INTEL_LLVM_COMPILER / 10000, __INTEL_LLVM_COMPILER / 100 % 100,                      \
                                __INTEL_LLVM_COMPILER % 100)
#else
#define PLATFORM_COMPILER_VERSION                                                                                      \
  PLATFORM_COMPILER_VERSION_INT(__INTEL_COMPILER / 100, __INTEL_COMPILER / 10 % 10, __INTEL_COMPILER % 10)
#endif
#elif defined(__clang__)
#define PLATFORM_COMPILER_CLANG 1
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#define PLATFORM_COMPILER_FAMILYID 20
#define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__, __clang_patchlevel__)
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_GNU 1
#define PLATFORM_COMPILER_FAMILYNAME GNU
#define PLATFORM_COMPILER_FAMILYID 1
#define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#else
#define PLATFORM_COMPILER_UNKNOWN 1
#define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
#define PLATFORM_COMPILER_FAMILYID 0
#define PLATFORM_COMPILER_VERSION 0
#endif
/* GNU C / GNU C++ front end in use (every compiler above has one). */
#if defined(__cplusplus)
#define PLATFORM_COMPILER_CXX 1
#else
#define PLATFORM_COMPILER_C 1
#endif
/* The compiler's own version text (a string literal). */
#if defined(__VERSION__)
#define PLATFORM_COMPILER_VERSION_STR __VERSION__
#else
#define PLATFORM_COMPILER_VERSION_STR "unknown"
#endif
/* Compare the compiler's version with maj.min.pat. */
#define PLATFORM_COMPILER_VERSION_GT(maj, min, pat)                                                                    \
  (PLATFORM_COMPILER_VERSION > PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_GE(maj, min, pat)                                                                    \
  (PLATFORM_COMPILER_VERSION >= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_EQ(maj, min, pat)                                                                    \
  (PLATFORM_COMPILER_VERSION == PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LT(maj, min, pat)                                                                    \
  (PLATFORM_COMPILER_VERSION < PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
/* The language level: __STDC_VERSION__ in C, __cplusplus in C++ (0 where not defined). */
#if defined(__STDC_VERSION__)
#define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
#else
#define PLATFORM_COMPILER_C_LANGLVL 0
#endif
#if defined(__cplusplus)
#define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
#else
#define PLATFORM_COMPILER_CXX_LANGLVL 0
#endif

/* ---- Operating system ----------------------------------------------------------------------- */

#if defined(__linux__)
#define PLATFORM_OS_LINUX 1
#define PLATFORM_OS_FAMILYNAME LINUX
#else
#define PLATFORM_OS_UNKNOWN 1
#define PLATFORM_OS_FAMILYNAME UNKNOWN
#endif

/* ---- CPU ------------------------------------------------------------------------------------ */

#if defined(__x86_64__)
#define PLATFORM_ARCH_X86_64 1
#define PLATFORM_ARCH_FAMILYNAME X86_64
#elif defined(__i386__)
#define PLATFORM_ARCH_X86 1
#define PLATFORM_ARCH_FAMILYNAME X86
#elif defined(__aarch64__)
#define PLATFORM_ARCH_AARCH64 1
#define PLATFORM_ARCH_FAMILYNAME AARCH64
#elif defined(__arm__)
#define PLATFORM_ARCH_ARM 1
#define PLATFORM_ARCH_FAMILYNAME ARM
#elif defined(__powerpc__) || defined(__powerpc64__)
#define PLATFORM_ARCH_POWERPC 1
#define PLATFORM_ARCH_FAMILYNAME POWERPC
#else
#define PLATFORM_ARCH_UNKNOWN 1
#define PLATFORM_ARCH_FAMILYNAME UNKNOWN
#endif
/* Pointer width. */
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8
#define PLATFORM_ARCH_64 1
#else
#define PLATFORM_ARCH_32 1
#endif
/* Byte order. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLATFORM_ARCH_BIG_ENDIAN 1
#else
#define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif

#endif /* GASNET_PORTABLE_PLATFORM_H */
