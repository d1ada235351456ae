#include "ui/exporter.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>
#include <memory>

#include "core/common/error.h"
#include "core/io/npy.h"
#include "ui/head_grid_view.h"

namespace headmap::ui {
namespace {

constexpr int kGridTitleHeight = 40;

// Exports are documents: always dark text on white, whatever the desktop palette.
QPalette paperPalette() {
  QPalette pal;
  pal.setColor(QPalette::Window, Qt::white);
  pal.setColor(QPalette::WindowText, Qt::black);
  return pal;
}

QSize canvasSize(const ImageExport& r, int* columns) {
  const int n = int(r.maps.size());
  *columns = n > 1 ? (r.columns > 0 ? r.columns : HeadGridView::columnsFor(n)) : 1;
  const int rows = (n + *columns - 1) / *columns;
  const int title = n > 1 ? kGridTitleHeight : 0;
  return QSize(r.tileSize.width() * *columns, r.tileSize.height() * rows + title);
}

// Paints every map through QCustomPlot's own painter path (vector on SVG/PDF devices).
void paintMaps(const ImageExport& r, QCPPainter* painter) {
  int columns = 1;
  const QSize canvas = canvasSize(r, &columns);
  painter->fillRect(QRect(QPoint(0, 0), canvas), Qt::white);
  const int n = int(r.maps.size());
  int top = 0;
  if (n > 1) {
    QFont font = painter->font();
    font.setPointSize(13);
    font.setBold(true);
    painter->setFont(font);
    painter->setPen(Qt::black);
    painter->drawText(QRect(0, 0, canvas.width(), kGridTitleHeight), Qt::AlignCenter, r.title);
    top = kGridTitleHeight;
  }
  for (int i = 0; i < n; ++i) {
    HeatmapView view(HeatmapView::Style::Full);
    view.setPalette(paperPalette());
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(r.tileSize);
    view.plot()->resize(r.tileSize);
    view.setColormap(r.colormap);
    view.setLevelOfDetail(false);  // a figure draws every cell, whatever the scale
    view.setData(r.maps[i]);
    painter->save();
    painter->translate((i % columns) * r.tileSize.width(),
                       top + (i / columns) * r.tileSize.height());
    view.paintPlot(painter);
    painter->restore();
  }
}

QString saveError(const QString& path, const QSaveFile& file) {
  return QStringLiteral("%1: cannot write (%2)").arg(path, file.errorString());
}

void openOrThrow(QSaveFile& file, const QString& path, QIODevice::OpenMode mode) {
  if (!file.open(mode)) throw Error(saveError(path, file).toStdString());
}

void commitOrThrow(QSaveFile& file, const QString& path) {
  if (!file.commit()) throw Error(saveError(path, file).toStdString());
}

}  // namespace

ImageFormat imageFormatFor(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "png") return ImageFormat::Png;
  if (suffix == "svg") return ImageFormat::Svg;
  if (suffix == "pdf") return ImageFormat::Pdf;
  throw Error(QStringLiteral("%1: unknown image type '.%2' (expected .png, .svg or .pdf)")
                  .arg(path, suffix)
                  .toStdString());
}

void exportImage(const ImageExport& request, const QString& path) {
  if (request.maps.empty()) throw Error(path.toStdString() + ": nothing to export yet");
  const ImageFormat format = imageFormatFor(path);
  int columns = 1;
  const QSize canvas = canvasSize(request, &columns);
  QSaveFile file(path);
  openOrThrow(file, path, QIODevice::WriteOnly);
  if (format == ImageFormat::Png) {
    const double scale = std::clamp(request.scale, 0.25, 8.0);
    QImage image(canvas * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDotsPerMeterX(int(96 * scale / 0.0254));
    image.setDotsPerMeterY(int(96 * scale / 0.0254));
    {
      QCPPainter painter(&image);
      painter.setRenderHint(QPainter::TextAntialiasing);
      painter.scale(scale, scale);
      paintMaps(request, &painter);
    }
    if (!image.save(&file, "PNG")) {
      file.cancelWriting();
      throw Error(saveError(path, file).toStdString());
    }
  } else if (format == ImageFormat::Svg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(canvas);
    svg.setViewBox(QRect(QPoint(0, 0), canvas));
    svg.setTitle(request.maps.size() > 1 ? request.title : request.maps.front().title);
    svg.setDescription(QStringLiteral("headmap attention heatmap"));
    QCPPainter painter;
    if (!painter.begin(&svg)) throw Error(path.toStdString() + ": cannot start the SVG painter");
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    paintMaps(request, &painter);
    painter.end();
  } else {
    QPdfWriter pdf(&file);
    pdf.setResolution(96);
    pdf.setPageSize(QPageSize(QSizeF(canvas.width() * 72.0 / 96, canvas.height() * 72.0 / 96),
                              QPageSize::Point));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setTitle(request.maps.size() > 1 ? request.title : request.maps.front().title);
    pdf.setCreator(QStringLiteral("headmap"));
    QCPPainter painter;
    if (!painter.begin(&pdf)) throw Error(path.toStdString() + ": cannot start the PDF painter");
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    paintMaps(request, &painter);
    painter.end();
  }
  commitOrThrow(file, path);
}

void exportNpy(const HeadMaps& maps, const QString& path) {
  if (maps.empty()) throw Error(path.toStdString() + ": nothing to export yet");
  writeNpy(path.toStdString(), {maps.heads, maps.q, maps.k}, maps.values.data());
}

namespace {
QString csvField(const QString& s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n') && s.trimmed() == s) return s;
  QString quoted = s;
  quoted.replace('"', QStringLiteral("\"\""));
  return '"' + quoted + '"';
}
}  // namespace

void exportCsv(const HeadMaps& maps, const QStringList& tokens, const QString& path) {
  if (maps.empty()) throw Error(path.toStdString() + ": nothing to export yet");
  QSaveFile file(path);
  openOrThrow(file, path, QIODevice::WriteOnly | QIODevice::Text);
  QTextStream out(&file);
  out.setEncoding(QStringConverter::Utf8);
  for (int h = 0; h < maps.heads; ++h) {
    out << "head,query";
    for (int c = 0; c < maps.k; ++c) out << ',' << csvField(tokens.value(c));
    out << '\n';
    for (int r = 0; r < maps.q; ++r) {
      out << h << ',' << csvField(tokens.value(r));
      const float* row = maps.values.data() + (size_t(h) * maps.q + r) * maps.k;
      for (int c = 0; c < maps.k; ++c) out << ',' << QString::number(row[c], 'g', 8);
      out << '\n';
    }
  }
  out.flush();
  if (out.status() != QTextStream::Ok) {
    file.cancelWriting();
    throw Error(saveError(path, file).toStdString());
  }
  commitOrThrow(file, path);
}

}  // namespace headmap::ui
