#pragma once
// The small model embedded in the resources (":/default_model/"), copied to the cache folder so
// the file-based loaders can read it.
#include <QString>

namespace headmap::ui {

// The cache folder holding the embedded model, rewritten when its contents differ from the
// resources; "" when the build embeds no model or the cache cannot be written (message in *error).
QString extractDefaultModel(QString* error = nullptr);

}  // namespace headmap::ui
