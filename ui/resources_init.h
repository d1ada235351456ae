#pragma once

namespace headmap::ui {

// Registers the icons and the embedded default model: the .qrc files are compiled into the
// static headmap_ui library, whose resources a linker would otherwise drop. Idempotent.
void initResources();

}  // namespace headmap::ui
