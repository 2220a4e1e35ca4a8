/* Compile-only: gasnetex.h is valid, warning-free C++17 (-Wall -Wextra -pedantic -Werror), after
 * gasnet.h as well, and twice; its types and constants are what [GEX] promises. */
#define GASNET_PAR 1
#include <gasnet.h>
#include <gasnetex.h>
#include <gasnetex.h>

#include <stdint.h>

static_assert(GEX_SPEC_VERSION_MAJOR == 0 && GEX_SPEC_VERSION_MINOR == 15, "spec version");
#include <gasnet_mk.h>
static_assert(GASNET_MAXEPS == 33 && GASNET_HAVE_MK_CLASS_CUDA_UVA == 1, "memory kinds");
static_assert(sizeof(gex_Rank_t) == sizeof(gasnet_node_t), "gex_Rank_t is interoperable with gasnet_node_t");
static_assert(sizeof(gex_AM_Arg_t) == sizeof(gasnet_handlerarg_t), "gex_AM_Arg_t");
static_assert(sizeof(gex_RMA_Value_t) == SIZEOF_GEX_RMA_VALUE_T, "SIZEOF_GEX_RMA_VALUE_T");
static_assert(sizeof(gex_Event_t) == sizeof(gasnet_handle_t), "gex_Event_t is interoperable with gasnet_handle_t");
static_assert(GEX_RANK_INVALID > GASNET_MAXNODES, "GEX_RANK_INVALID exceeds every rank");
static_assert(GEX_AM_INDEX_BASE == 128, "client handler indices");
static_assert((GEX_EC_ALL & (GEX_EC_GET | GEX_EC_PUT | GEX_EC_AM | GEX_EC_LC | GEX_EC_RMW)) ==
                  (GEX_EC_GET | GEX_EC_PUT | GEX_EC_AM | GEX_EC_LC | GEX_EC_RMW),
              "GEX_EC_ALL");
static_assert((GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64 | GEX_DT_FLT | GEX_DT_DBL | GEX_DT_USER) ==
                  (GEX_DT_I32 ^ GEX_DT_U32 ^ GEX_DT_I64 ^ GEX_DT_U64 ^ GEX_DT_FLT ^ GEX_DT_DBL ^ GEX_DT_USER),
              "GEX_DT_* combine by bitwise OR without loss");
static_assert(GEX_OP_TO_FETCHING(GEX_OP_SET) == GEX_OP_SWAP && GEX_OP_TO_NONFETCHING(GEX_OP_FADD) == GEX_OP_ADD &&
                  (GEX_OP_USER & GEX_OP_USER_NC) == 0 && (GEX_OP_GET & (GEX_OP_FXOR | GEX_OP_FCAS)) == 0,
              "GEX_OP_* conversions");

/* Every AM name expands to a well-formed call (never called: compile only). */
void header_check_gasnetex(gex_TM_t tm, gex_Token_t t, void *p);
void header_check_gasnetex(gex_TM_t tm, gex_Token_t t, void *p) {
  gex_Event_t e = GEX_EVENT_INVALID;
  (void)gex_AM_RequestShort0(tm, 0, 200, 0);
  (void)gex_AM_RequestShort(tm, 0, 200, 0, 1, 2, 3);
  (void)gex_AM_RequestShort16(tm, 0, 200, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  (void)gex_AM_RequestMedium(tm, 0, 200, p, 4, GEX_EVENT_NOW, 0);
  (void)gex_AM_RequestMedium2(tm, 0, 200, p, 4, &e, 0, 1, 2);
  (void)gex_AM_RequestLong(tm, 0, 200, p, 4, p, GEX_EVENT_GROUP, 0, 1);
  (void)gex_AM_RequestLong16(tm, 0, 200, p, 4, p, GEX_EVENT_NOW, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                             16);
  (void)gex_AM_ReplyShort(t, 200, 0);
  (void)gex_AM_ReplyShort3(t, 200, 0, 1, 2, 3);
  (void)gex_AM_ReplyMedium1(t, 200, p, 4, GEX_EVENT_NOW, 0, 1);
  (void)gex_AM_ReplyLong(t, 200, p, 4, p, &e, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  e = gex_RMA_PutNB(tm, 0, p, p, 4, GEX_EVENT_DEFER, GEX_FLAG_IMMEDIATE);
  gex_Event_Wait(e);
  gex_TM_t team = GEX_TM_INVALID;
  (void)gex_TM_Split(&team, tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  (void)gex_TM_Split(NULL, tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
  e = gex_Coll_BroadcastNB(team, 0, p, p, 4, 0);
  e = gex_Coll_ReduceToOneNB(team, 0, p, p, GEX_DT_DBL, sizeof(double), 1, GEX_OP_ADD, NULL, NULL, 0);
  e = gex_Coll_ReduceToAllNB(team, p, p, GEX_DT_USER, 3, 1, GEX_OP_USER_NC, (gex_Coll_ReduceFn_t)0, p, 0);
  gex_Event_Wait(e);
  gex_Memvec_t scratch;
  (void)gex_TM_Destroy(team, &scratch, GEX_FLAG_GLOBALLY_QUIESCED);
  {
    gex_AD_t ad = GEX_AD_INVALID;
    uint64_t u = 0;
    int32_t i = 0;
    double d = 0;
    gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_TO_FETCHING(GEX_OP_SET), GEX_FLAG_AD_FAVOR_MY_NBRHD);
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &u, 0, p, GEX_OP_FADD, 1, 0, GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL));
    (void)gex_AD_OpNBI_I32(ad, &i, 0, p, GEX_OP_FCAS, 1, 2, GEX_FLAG_AD_MY_RANK);
    (void)gex_AD_OpNB_DBL(ad, &d, 0, p, GEX_OP_FMIN, 1.5, 0, GEX_FLAG_RANK_IS_JOBRANK);
    gex_NBI_Wait(GEX_EC_RMW, 0);
    gex_AD_Destroy(ad);
  }
  gex_HSL_t lock = GEX_HSL_INITIALIZER;
  gex_HSL_Lock(&lock);
  gex_HSL_Unlock(&lock);
}
