/* The symbols of a GASNet mode's library (libgasnet-hygaspi-<mode>): gasnet.h renames
 * gasnet_init to gasnet_init_GASNET_<mode>, so a client compiled for one mode links only with that
 * mode's library [G1 §1.5, implementor's note]; gasnetex.h renames gex_Client_Init alike. Every
 * mode runs on the same thread-safe engine (a PAR implementation serves all three); the mode is
 * recorded for hygaspi's messages. Built once per mode with -DHYG_MODE=SEQ|PARSYNC|PAR and
 * -DHYG_MODE_NUMBER=0|1|2. */
#define GASNET_HYG_LIBRARY 1
#include <gasnetex.h>

#define HYG_CAT2(a, b) a##b
#define HYG_CAT(a, b) HYG_CAT2(a, b)

int HYG_CAT(gasnet_init_GASNET_, HYG_MODE)(int *argc, char ***argv) {
  return gasnet_hyg_init(argc, argv, HYG_MODE_NUMBER);
}

int HYG_CAT(gex_Client_Init_GASNET_, HYG_MODE)(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                                               const char *clientName, int *argc, char ***argv, gex_Flags_t flags) {
  return gex_hyg_Client_Init(client_p, ep_p, tm_p, clientName, argc, argv, flags, HYG_MODE_NUMBER);
}
