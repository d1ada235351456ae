#pragma once
// Writes the shown heatmap(s) as PNG / SVG / PDF and the layer's maps as .npy / CSV. Every file
// is written to a temporary and renamed into place (QSaveFile, core's writeNpy), so a failed
// export leaves no partial file. Failures throw headmap::Error naming the file and the cause.
#include <QSize>
#include <QString>
#include <QStringList>
#include <vector>

#include "core/attention/attention.h"
#include "ui/heatmap_view.h"

namespace headmap::ui {

struct ImageExport {
  std::vector<HeatmapData> maps;  // one: a single heatmap; several: a grid with a title
  Colormap colormap = Colormap::Viridis;
  QString title;             // above a grid (a single map carries its own title)
  int columns = 0;           // maps per row; 0 = near-square (the overview: one row per layer)
  QSize tileSize{620, 560};  // logical pixels per heatmap
  double scale = 1.0;        // PNG only: 2.0 doubles the pixels (and the DPI)
};

enum class ImageFormat { Png, Svg, Pdf };
// From the suffix (.png/.svg/.pdf, case-insensitive); throws headmap::Error otherwise.
ImageFormat imageFormatFor(const QString& path);

void exportImage(const ImageExport& request, const QString& path);
// maps: (heads, q, k) -> a float32 .npy of that shape.
void exportNpy(const HeadMaps& maps, const QString& path);
// One block per head: "head,query,<key tokens...>" then one row per query token.
void exportCsv(const HeadMaps& maps, const QStringList& tokens, const QString& path);

}  // namespace headmap::ui
