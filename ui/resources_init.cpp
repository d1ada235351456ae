#include "ui/resources_init.h"

#include <QtGlobal>

// Q_INIT_RESOURCE declares a global function: it must be expanded outside any namespace.
static void initHeadmapQrc() {
  Q_INIT_RESOURCE(resources);
#ifdef HEADMAP_HAS_DEFAULT_MODEL
  Q_INIT_RESOURCE(default_model);
#endif
}

namespace headmap::ui {

void initResources() {
  static const bool done = (initHeadmapQrc(), true);
  (void)done;
}

}  // namespace headmap::ui
