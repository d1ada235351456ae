#pragma once
// Write-then-rename, so an export that fails leaves no partial file behind.
#include <functional>
#include <ostream>
#include <string>

namespace headmap {

// Calls writer on a stream to "<path>.tmp-XXXX" in the same folder, flushes, and renames it over
// path. On any failure the temporary is removed and headmap::Error names path and the cause.
void writeFileAtomic(const std::string& path, const std::function<void(std::ostream&)>& writer);

}  // namespace headmap
