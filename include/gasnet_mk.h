/* gasnet_mk.h: memory kinds [GEX-MK "Memory Kinds"], the classes of memory gex_Segment_Create
 * accepts besides host memory. CUDA_UVA is served through the CUDA driver, which the library loads
 * at run time (HYGASPI_CUDA_LIBRARY, default libcuda.so.1): gex_MK_Create returns
 * GASNET_ERR_BAD_ARG, and nothing else happens, where there is no driver, no such device, or a
 * device without unified addressing. HIP and ZE are named, and refused the same way. */
#ifndef GASNET_MK_H
#define GASNET_MK_H

#include "gasnetex.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef enum {
  GEX_MK_CLASS_INVALID = 0,
  GEX_MK_CLASS_HOST,     /* ordinary memory: GEX_MK_HOST is its one kind, gex_MK_Create refuses it */
  GEX_MK_CLASS_CUDA_UVA, /* CUDA device memory on a device with unified addressing */
  GEX_MK_CLASS_HIP,      /* not served: GASNET_ERR_BAD_ARG */
  GEX_MK_CLASS_ZE        /* not served: GASNET_ERR_BAD_ARG */
} gex_MK_Class_t;

typedef struct {
  uint64_t gex_flags; /* reserved: 0 */
  gex_MK_Class_t gex_class;
  union {
    struct {
      int gex_CUdevice; /* the device ordinal, as cuDeviceGet takes it */
    } gex_class_cuda_uva;
    struct {
      int gex_hipDevice;
    } gex_class_hip;
    struct {
      void *gex_zeDevice;
      void *gex_zeContext;
      uint32_t gex_zeMemoryOrdinal;
    } gex_class_ze;
  } gex_args;
} gex_MK_Create_args_t;

/* Not collective. A null kind_p or args, non-zero flags or gex_flags, and GEX_MK_CLASS_HOST are
 * fatal; a class or device this machine cannot serve returns GASNET_ERR_BAD_ARG with *kind_p
 * unchanged. */
int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args, gex_Flags_t flags);
/* Fatal while a segment of the kind exists. */
void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* GASNET_MK_H */
