#pragma once
// One attention map drawn with QCustomPlot: query rows down the left (row 0 at the top), keys
// along the bottom, a colorbar, hatched masked cells and a hover tooltip. It only draws what it is
// given (HeatmapData) and reports clicks; it never computes attention.
#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ui/colormaps.h"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QCPAxisRect;

namespace headmap::ui {

class MaskHatchLayer;

struct HeatmapData {
  int q = 0;
  int k = 0;
  std::vector<float> values;  // (q, k) row-major
  std::vector<uint8_t> mask;  // (q, k) row-major, 1 = masked; empty = nothing masked
  QStringList queryLabels;    // q entries
  QStringList keyLabels;      // k entries
  QString title;
  QString valueName = "weight";  // "weight" in the softmax stage, "score" otherwise
  bool fixedUnitRange = true;    // colour range 0..1, else min..max of the unmasked cells
  QString hoverNote;             // shown above the cell value in the hover tooltip, if any
  bool diverging = false;        // differences: blue–white–red, range symmetric about 0
};

class HeatmapView : public QWidget {
  Q_OBJECT
 public:
  enum class Style { Full, Thumbnail };  // thumbnails: no tick labels nor colorbar (grid mode)
  explicit HeatmapView(Style style = Style::Full, QWidget* parent = nullptr);

  void setData(HeatmapData data);  // updates the colour map in place when the size is unchanged
  void setColormap(Colormap map);
  const HeatmapData& data() const { return m_data; }
  bool isMasked(int row, int col) const;
  int nonFiniteCount() const { return m_nonFinite; }  // unmasked NaN/Inf cells
  // "query → key: 0.1234" for cell (row, col), as the hover tooltip shows it.
  QString cellText(int row, int col) const;
  QCustomPlot* plot() const { return m_plot; }
  // Draws the plot, vector where the device allows, into a painter at the current widget size.
  void paintPlot(class QCPPainter* painter);
  double lastRenderMs() const { return m_lastRenderMs; }
  // Full style: mouse wheel zooms, drag pans (within the matrix); double-click or resetView()
  // shows the whole matrix again.
  void resetView();
  bool isZoomed() const;
  // Maps of more than kPooledCells cells draw only the visible window, max-pooled to about one
  // block per pixel (on by default). Exports turn it off to draw every cell at any scale.
  static constexpr size_t kPooledCells = size_t(1024) * 1024;
  void setLevelOfDetail(bool on);
  bool pooled() const;

 signals:
  void clicked();

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void buildPlot();
  void applyLabels();
  void applyPalette();
  void fitSquareCells();
  void replot();
  void onMouseMove(QMouseEvent* event);
  void onRangeChanged(class QCPAxis* axis, const class QCPRange& range);
  void resetRanges();
  void refreshCells();

  Style m_style;
  HeatmapData m_data;
  int m_nonFinite = 0;
  double m_lastRenderMs = 0;
  QCustomPlot* m_plot = nullptr;
  QCPAxisRect* m_rect = nullptr;
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
  QCPTextElement* m_title = nullptr;
  MaskHatchLayer* m_hatch = nullptr;
  Colormap m_colormap = Colormap::Viridis;
  int m_shownQ = -1, m_shownK = -1;  // shape the axis ranges were last reset for
  bool m_adjusting = false;          // setting ranges ourselves: no clamping, no relabelling
  double m_cellPx = 0;               // side of a square cell at full view, from fitSquareCells
  bool m_levelOfDetail = true;
  bool m_cellsStale = false;         // pooled window out of date: refresh before the next replot
  std::vector<uint8_t> m_shownMask;  // (drawn rows, drawn cols): 1 = every cell masked, hatched
};

// Shortens a token for an axis label; whitespace-only tokens become visible symbols.
QString axisLabel(const QString& token, int maxChars = 14);

}  // namespace headmap::ui
