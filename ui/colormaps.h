#pragma once
// Perceptually ordered colormaps as QCPColorGradient stops (QCustomPlot 2.1 has no viridis).
#include <qcustomplot.h>

#include <QString>
#include <QStringList>

namespace headmap::ui {

enum class Colormap { Viridis, Magma, Blues, Grayscale };

QStringList colormapNames();         // in enum order, for combo boxes and settings
QString colormapName(Colormap map);  // "viridis", ...
Colormap colormapFromName(const QString& name, bool* ok = nullptr);
QCPColorGradient makeGradient(Colormap map);
// Blue (negative) – white (0) – red (positive), for differences on a range symmetric about 0.
QCPColorGradient divergingGradient();

}  // namespace headmap::ui
