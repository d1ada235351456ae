#include "ui/colormaps.h"

#include <array>

namespace headmap::ui {
namespace {

// Matplotlib's viridis and magma sampled at 0, 0.1, ..., 1 (van der Walt & Smith, CC0), and the
// nine-class ColorBrewer Blues that matplotlib's "Blues" interpolates. Linear RGB interpolation
// between this many stops stays within a few units of the full 256-entry tables.
constexpr std::array<const char*, 11> kViridis = {"#440154", "#482475", "#414487", "#355f8d",
                                                  "#2a788e", "#21918c", "#22a884", "#44bf70",
                                                  "#7ad151", "#bddf26", "#fde725"};
constexpr std::array<const char*, 11> kMagma = {"#000004", "#140e36", "#3b0f70", "#641a80",
                                                "#8c2981", "#b73779", "#de4968", "#f7705c",
                                                "#fe9f6d", "#fecf92", "#fcfdbf"};
constexpr std::array<const char*, 9> kBlues = {"#f7fbff", "#deebf7", "#c6dbef",
                                               "#9ecae1", "#6baed6", "#4292c6",
                                               "#2171b5", "#08519c", "#08306b"};

template <size_t N>
QCPColorGradient fromStops(const std::array<const char*, N>& stops) {
  QCPColorGradient gradient;
  QMap<double, QColor> map;
  for (size_t i = 0; i < N; ++i) map.insert(double(i) / double(N - 1), QColor(stops[i]));
  gradient.setColorStops(map);
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setLevelCount(256);
  // Masked cells are NaN in the map data: draw them a neutral grey (the overlay hatches them).
  gradient.setNanHandling(QCPColorGradient::nhNanColor);
  gradient.setNanColor(QColor(128, 128, 128));
  return gradient;
}

}  // namespace

QStringList colormapNames() { return {"viridis", "magma", "Blues", "grayscale"}; }

QString colormapName(Colormap map) { return colormapNames().at(static_cast<int>(map)); }

Colormap colormapFromName(const QString& name, bool* ok) {
  const int index = colormapNames().indexOf(name);
  if (ok) *ok = index >= 0;
  return index >= 0 ? static_cast<Colormap>(index) : Colormap::Viridis;
}

QCPColorGradient makeGradient(Colormap map) {
  switch (map) {
    case Colormap::Magma:
      return fromStops(kMagma);
    case Colormap::Blues:
      return fromStops(kBlues);
    case Colormap::Grayscale:
      return fromStops(std::array<const char*, 2>{"#000000", "#ffffff"});
    case Colormap::Viridis:
      break;
  }
  return fromStops(kViridis);
}

QCPColorGradient divergingGradient() {
  QCPColorGradient g;
  g.clearColorStops();
  g.setColorStopAt(0.0, QColor(33, 102, 172));  // strong negative: blue
  g.setColorStopAt(0.25, QColor(146, 197, 222));
  g.setColorStopAt(0.5, QColor(247, 247, 247));  // zero: white
  g.setColorStopAt(0.75, QColor(244, 165, 130));
  g.setColorStopAt(1.0, QColor(178, 24, 43));  // strong positive: red
  g.setNanHandling(QCPColorGradient::nhNanColor);
  g.setNanColor(QColor(160, 160, 160));
  return g;
}

}  // namespace headmap::ui
