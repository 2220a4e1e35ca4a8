/* The one symbol of a GASNet mode's library (libgasnet-hygaspi-<mode>): gasnet.h renames
 * gasnet_init to gasnet_init_GASNET_<mode>, so a client compiled for one mode links only with that
 * mode's library [G1 §1.5, implementor's note]. Every mode runs on the same thread-safe engine
 * (a PAR implementation serves all three); the mode is recorded for hygaspi's messages. Built once
 * per mode with -DHYG_MODE=SEQ|PARSYNC|PAR and -DHYG_MODE_NUMBER=0|1|2. */
#define GASNET_HYG_LIBRARY 1
#include <gasnet.h>

#define HYG_CAT2(a, b) a##b
#define HYG_CAT(a, b) HYG_CAT2(a, b)

int HYG_CAT(gasnet_init_GASNET_, HYG_MODE)(int *argc, char ***argv) {
  return gasnet_hyg_init(argc, argv, HYG_MODE_NUMBER);
}
