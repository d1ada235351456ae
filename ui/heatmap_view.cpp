#include "ui/heatmap_view.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace headmap::ui {

// Draws grey hatching over masked cells, above the colour map and inside its axis rect, so a
// masked cell never reads as a cell of weight 0.
class MaskHatchLayer : public QCPLayerable {
 public:
  MaskHatchLayer(QCustomPlot* plot, QCPAxisRect* rect) : QCPLayerable(plot, "main"), m_rect(rect) {}
  // mask: (rows, cols) of drawn cells; cell (r, c) covers keys from firstCol + c * colStep and
  // queries from firstRow + r * rowStep, colStep x rowStep matrix cells (1 x 1 unpooled).
  void setMask(const std::vector<uint8_t>* mask, int rows, int cols, int firstRow = 0,
               int rowStep = 1, int firstCol = 0, int colStep = 1) {
    m_mask = mask;
    m_q = rows;
    m_k = cols;
    m_firstRow = firstRow;
    m_rowStep = rowStep;
    m_firstCol = firstCol;
    m_colStep = colStep;
  }

 protected:
  QRect clipRect() const override { return m_rect->rect(); }
  void applyDefaultAntialiasingHint(QCPPainter* painter) const override {
    painter->setAntialiasing(false);
  }
  void draw(QCPPainter* painter) override {
    if (!m_mask || m_mask->empty()) return;
    QCPAxis* x = m_rect->axis(QCPAxis::atBottom);
    QCPAxis* y = m_rect->axis(QCPAxis::atLeft);
    auto xEdge = [&](int c) { return x->coordToPixel(m_firstCol + c * m_colStep - 0.5); };
    auto yEdge = [&](int r) { return y->coordToPixel(m_firstRow + r * m_rowStep - 0.5); };
    painter->setPen(Qt::NoPen);
    const QBrush hatch(QColor(70, 70, 70), Qt::BDiagPattern);
    for (int row = 0; row < m_q; ++row) {
      // Merge runs of masked cells in a row into one rectangle: fewer draw calls, seamless hatch.
      int col = 0;
      while (col < m_k) {
        if (!(*m_mask)[size_t(row) * m_k + col]) {
          ++col;
          continue;
        }
        const int start = col;
        while (col < m_k && (*m_mask)[size_t(row) * m_k + col]) ++col;
        const QRectF cells(QPointF(xEdge(start), yEdge(row)), QPointF(xEdge(col), yEdge(row + 1)));
        painter->fillRect(cells.normalized(), QColor(150, 150, 150));
        painter->fillRect(cells.normalized(), hatch);
      }
    }
  }

 private:
  QCPAxisRect* m_rect;
  const std::vector<uint8_t>* m_mask = nullptr;
  int m_q = 0;
  int m_k = 0;
  int m_firstRow = 0, m_rowStep = 1, m_firstCol = 0, m_colStep = 1;
};

QString axisLabel(const QString& token, int maxChars) {
  QString label = token.trimmed();
  if (label.isEmpty()) {
    if (token.contains('\n')) return QStringLiteral("↵");
    if (token.contains('\t')) return QStringLiteral("⇥");
    return token.isEmpty() ? QStringLiteral("∅") : QStringLiteral("␣");
  }
  label.replace('\n', QStringLiteral("↵"));
  if (label.size() > maxChars) label = label.left(maxChars - 1) + QStringLiteral("…");
  return label;
}

HeatmapView::HeatmapView(Style style, QWidget* parent) : QWidget(parent), m_style(style) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_plot = new QCustomPlot(this);
  layout->addWidget(m_plot);
  buildPlot();
  setMinimumSize(style == Style::Full ? QSize(240, 200) : QSize(90, 90));
}

void HeatmapView::buildPlot() {
  m_plot->setNoAntialiasingOnDrag(true);
  m_plot->plotLayout()->clear();
  const bool full = m_style == Style::Full;
  m_title =
      new QCPTextElement(m_plot, QString(), QFont(font().family(), full ? 11 : 9, QFont::Bold));
  m_plot->plotLayout()->addElement(0, 0, m_title);
  m_rect = new QCPAxisRect(m_plot);
  m_plot->plotLayout()->addElement(1, 0, m_rect);
  m_map = new QCPColorMap(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
  m_map->setInterpolate(false);  // one flat cell per (query, key)
  // Not setTightBoundary: it halves the outer cells. The data range holds the cell centres.
  m_hatch = new MaskHatchLayer(m_plot, m_rect);
  m_rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // row 0 at the top, as imshow
  for (auto* axis : {m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft)}) {
    axis->grid()->setVisible(false);
    axis->setSubTicks(false);
    axis->setTickLength(0, 3);
    axis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    axis->setTickLabels(full);
  }
  if (full) {
    m_rect->axis(QCPAxis::atBottom)->setLabel("key");
    m_rect->axis(QCPAxis::atLeft)->setLabel("query");
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(1, 1, m_scale);
    m_scale->setBarWidth(14);
    m_map->setColorScale(m_scale);
    auto* group = new QCPMarginGroup(m_plot);
    m_rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  } else {
    m_rect->setAutoMargins(QCP::msNone);
    m_rect->setMargins(QMargins(2, 2, 2, 2));
    for (auto* axis : {m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft)})
      axis->setTicks(false);
    connect(m_plot, &QCustomPlot::mousePress, this, [this] { emit clicked(); });
  }
  if (full) {  // wheel zooms around the cursor, drag pans; labels re-thin for the visible range
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    m_rect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    for (auto* axis : {m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft)})
      connect(axis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
              [this, axis](const QCPRange& range) { onRangeChanged(axis, range); });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
  }
  connect(m_plot, &QCustomPlot::beforeReplot, this, [this] {
    if (m_cellsStale) refreshCells();
  });
  m_plot->plotLayout()->setRowSpacing(2);
  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapView::onMouseMove);
  setColormap(Colormap::Viridis);
  applyPalette();
}

void HeatmapView::setColormap(Colormap map) {
  m_colormap = map;
  m_map->setGradient(m_data.diverging ? divergingGradient() : makeGradient(map));
  if (m_data.q > 0) replot();
}

bool HeatmapView::isMasked(int row, int col) const {
  return !m_data.mask.empty() && m_data.mask[size_t(row) * m_data.k + col];
}

void HeatmapView::setData(HeatmapData data) {
  const bool labelsChanged = data.queryLabels != m_data.queryLabels ||
                             data.keyLabels != m_data.keyLabels || data.title != m_data.title;
  m_data = std::move(data);
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  m_nonFinite = 0;
  for (size_t i = 0; i < m_data.values.size(); ++i) {
    const float v = m_data.values[i];
    if (!m_data.mask.empty() && m_data.mask[i]) continue;
    if (!std::isfinite(v)) {
      ++m_nonFinite;
    } else {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  QCPRange range(0, 1);
  if (!m_data.fixedUnitRange && lo <= hi) range = QCPRange(lo, hi > lo ? hi : lo + 1e-6);
  if (m_data.diverging) {
    const double extent = lo <= hi ? std::max({std::abs(lo), std::abs(hi), 1e-6f}) : 1.0;
    range = QCPRange(-extent, extent);
  }
  m_map->setGradient(m_data.diverging ? divergingGradient() : makeGradient(m_colormap));
  m_map->setDataRange(range);
  if (m_scale) {
    m_scale->axis()->setLabel(m_data.valueName == "weight" ? QStringLiteral("attention weight")
                                                           : m_data.valueName);
  }
  // A new input of another length starts unzoomed; the same shape keeps the user's zoom.
  if (m_data.q != m_shownQ || m_data.k != m_shownK) {
    m_shownQ = m_data.q;
    m_shownK = m_data.k;
    resetRanges();
  }
  if (labelsChanged) {
    m_title->setText(m_data.title);
    applyLabels();
    fitSquareCells();
  }
  if (!pooled()) refreshCells();  // pooled maps refresh in replot(), for the final layout
  replot();
}

bool HeatmapView::pooled() const {
  return m_levelOfDetail && size_t(m_data.q) * size_t(m_data.k) > kPooledCells;
}

void HeatmapView::setLevelOfDetail(bool on) {
  m_levelOfDetail = on;
  if (m_data.q > 0) {
    refreshCells();
    replot();
  }
}

// Fills the colour map from m_data. Small maps: every cell. Large ones (pooled()): only the
// visible window, each drawn cell the maximum over a block of matrix cells so that blocks are
// about one pixel — a 4,096² head drawn cell by cell took ~1.2 s per repaint. The maximum keeps
// single sharp weights visible; hover still reads the exact cell.
void HeatmapView::refreshCells() {
  const int q = m_data.q, k = m_data.k;
  if (q <= 0 || k <= 0) return;
  int c0 = 0, c1 = k - 1, r0 = 0, r1 = q - 1, fx = 1, fy = 1;
  if (pooled()) {
    const QCPRange xr = m_rect->axis(QCPAxis::atBottom)->range();
    const QCPRange yr = m_rect->axis(QCPAxis::atLeft)->range();
    c0 = std::clamp(int(std::floor(xr.lower + 0.5)), 0, k - 1);
    c1 = std::clamp(int(std::ceil(xr.upper - 0.5)), c0, k - 1);
    r0 = std::clamp(int(std::floor(yr.lower + 0.5)), 0, q - 1);
    r1 = std::clamp(int(std::ceil(yr.upper - 0.5)), r0, q - 1);
    fx = std::max(1, int(std::ceil(double(c1 - c0 + 1) / std::max(1, m_rect->width()))));
    fy = std::max(1, int(std::ceil(double(r1 - r0 + 1) / std::max(1, m_rect->height()))));
  }
  const int nx = (c1 - c0 + fx) / fx, ny = (r1 - r0 + fy) / fy;
  // QCPColorMap draws a 1-cell dimension with zero extent: store such a dimension as two
  // half-width cells of the same value (centres ±0.25 cell cover the cell).
  QCPColorMapData* cells = m_map->data();
  const int keyCells = nx == 1 ? 2 : nx, valueCells = ny == 1 ? 2 : ny;
  if (cells->keySize() != keyCells || cells->valueSize() != valueCells)
    cells->setSize(keyCells, valueCells);
  auto span = [](int first, int step, int count) {
    const double centre = first + (step - 1) / 2.0;
    return count == 1 ? QCPRange(centre - 0.25 * step, centre + 0.25 * step)
                      : QCPRange(centre, centre + double(count - 1) * step);
  };
  cells->setRange(span(c0, fx, nx), span(r0, fy, ny));
  m_shownMask.assign(m_data.mask.empty() ? 0 : size_t(nx) * ny, 0);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int by = 0; by < ny; ++by) {
    const int rowEnd = std::min(r1 + 1, r0 + (by + 1) * fy);
    for (int bx = 0; bx < nx; ++bx) {
      const int colEnd = std::min(c1 + 1, c0 + (bx + 1) * fx);
      float v = -std::numeric_limits<float>::infinity();
      bool allMasked = true;
      for (int row = r0 + by * fy; row < rowEnd; ++row) {
        for (int col = c0 + bx * fx; col < colEnd; ++col) {
          if (isMasked(row, col)) continue;
          allMasked = false;
          const float cell = m_data.values[size_t(row) * k + col];
          if (std::isfinite(cell)) v = std::max(v, cell);
        }
      }
      if (!std::isfinite(v)) v = nan;  // masked, or nothing finite: no colour
      if (allMasked && !m_shownMask.empty()) m_shownMask[size_t(by) * nx + bx] = 1;
      cells->setCell(bx, by, v);
      if (nx == 1) cells->setCell(1, by, v);
      if (ny == 1) cells->setCell(bx, 1, v);
      if (nx == 1 && ny == 1) cells->setCell(1, 1, v);
    }
  }
  m_hatch->setMask(&m_shownMask, ny, nx, r0, fy, c0, fx);
  m_cellsStale = false;
}

void HeatmapView::resetRanges() {
  m_adjusting = true;
  m_rect->axis(QCPAxis::atBottom)->setRange(-0.5, m_data.k - 0.5);
  m_rect->axis(QCPAxis::atLeft)->setRange(-0.5, m_data.q - 0.5);
  m_adjusting = false;
}

void HeatmapView::resetView() {
  resetRanges();
  applyLabels();
  replot();
}

bool HeatmapView::isZoomed() const {
  return m_rect->axis(QCPAxis::atBottom)->range().size() < m_data.k - 1e-6 ||
         m_rect->axis(QCPAxis::atLeft)->range().size() < m_data.q - 1e-6;
}

// Keeps the view inside the matrix (no zooming out past it, no panning off it) and re-thins
// the labels for the cells now on screen.
void HeatmapView::onRangeChanged(QCPAxis* axis, const QCPRange& range) {
  if (m_adjusting) return;
  const bool horizontal = axis == m_rect->axis(QCPAxis::atBottom);
  const double lo = -0.5, hi = (horizontal ? m_data.k : m_data.q) - 0.5;
  QCPRange fixed = range;
  if (fixed.size() >= hi - lo) {
    fixed = QCPRange(lo, hi);
  } else if (fixed.lower < lo) {
    fixed = QCPRange(lo, lo + range.size());
  } else if (fixed.upper > hi) {
    fixed = QCPRange(hi - range.size(), hi);
  }
  if (fixed != range) {
    m_adjusting = true;
    axis->setRange(fixed);
    m_adjusting = false;
  }
  applyLabels();
  // The window (and the pooling) follow zoom and pan: re-pooled once, before the next replot,
  // not for each axis a wheel step changes.
  if (pooled()) m_cellsStale = true;
}

void HeatmapView::applyLabels() {
  if (m_style != Style::Full) return;
  QCPAxis* x = m_rect->axis(QCPAxis::atBottom);
  QCPAxis* y = m_rect->axis(QCPAxis::atLeft);
  const QFontMetrics metrics(x->tickLabelFont());
  int widest = 0;
  for (const QString& label : m_data.keyLabels)
    widest = std::max(widest, metrics.horizontalAdvance(axisLabel(label)));
  // Rotate key labels when they would not fit side by side under their cells.
  // Cell sizes on screen follow the zoom: the visible range, not the whole matrix.
  const double visibleK = std::max(1.0, std::min<double>(m_data.k, x->range().size()));
  const double visibleQ = std::max(1.0, std::min<double>(m_data.q, y->range().size()));
  const double zoomK = double(m_data.k) / visibleK, zoomQ = double(m_data.q) / visibleQ;
  const double cellWidth =
      m_cellPx > 0 ? m_cellPx * zoomK : double(std::max(1, m_rect->width())) / visibleK;
  x->setTickLabelRotation(widest + 4 > cellWidth ? -90 : 0);
  // Label every n-th token when cells are smaller than a line of text.
  const int lineHeight = metrics.height();
  const double cellHeight =
      m_cellPx > 0 ? m_cellPx * zoomQ : double(std::max(1, m_rect->height())) / visibleQ;
  const int xStep =
      widest + 4 > cellWidth && lineHeight > cellWidth ? int(std::ceil(lineHeight / cellWidth)) : 1;
  const int yStep = lineHeight > cellHeight ? int(std::ceil(lineHeight / cellHeight)) : 1;
  auto xTicker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < m_data.k; i += xStep)
    xTicker->addTick(i, axisLabel(m_data.keyLabels.value(i)));
  auto yTicker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < m_data.q; i += yStep)
    yTicker->addTick(i, axisLabel(m_data.queryLabels.value(i)));
  x->setTicker(xTicker);
  y->setTicker(yTicker);
}

// Keeps cells square (as imshow's aspect="equal"): the layout's outer margins absorb the
// difference between the available area and a whole number of square cells.
void HeatmapView::fitSquareCells() {
  if (m_data.q <= 0 || m_data.k <= 0 || m_plot->width() < 10) return;
  QCPLayoutGrid* layout = m_plot->plotLayout();
  layout->setMargins(QMargins(0, 0, 0, 0));
  m_plot->replot(QCustomPlot::rpImmediateRefresh);  // lays out with the current labels
  const QMargins labels = m_rect->margins();
  const int scaleWidth = m_scale ? m_scale->outerRect().width() + layout->columnSpacing() : 0;
  const int titleHeight = m_title->outerRect().height() + layout->rowSpacing();
  const int availW = m_plot->width() - scaleWidth - labels.left() - labels.right();
  const int availH = m_plot->height() - titleHeight - labels.top() - labels.bottom();
  if (availW <= 0 || availH <= 0) return;
  const double cell = std::min(double(availW) / m_data.k, double(availH) / m_data.q);
  const int extraW = std::max(0, int(availW - cell * m_data.k));
  const int extraH = std::max(0, int(availH - cell * m_data.q));
  layout->setMargins(QMargins(extraW / 2, 0, extraW - extraW / 2, extraH));
  m_cellPx = cell;  // the axis rect itself is only resized by the next replot
  if (m_style == Style::Full) applyLabels();  // rotation/thinning depend on the final cell size
}

void HeatmapView::replot() {
  QElapsedTimer timer;
  timer.start();
  if (pooled()) {
    // Lay out first (as replot would): the pooling follows the axis rect's final pixel size.
    QCPLayoutGrid* layout = m_plot->plotLayout();
    layout->setOuterRect(m_plot->viewport());
    for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                       QCPLayoutElement::upLayout})
      layout->update(phase);
    refreshCells();
  }
  m_plot->replot(QCustomPlot::rpImmediateRefresh);
  m_lastRenderMs = timer.nsecsElapsed() / 1e6;
}

void HeatmapView::paintPlot(QCPPainter* painter) {
  m_plot->toPainter(painter, m_plot->width(), m_plot->height());
}

void HeatmapView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitSquareCells();
  replot();
}

void HeatmapView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyPalette();
    replot();
  }
}

void HeatmapView::applyPalette() {
  const QPalette pal = palette();
  const QColor fg = pal.color(QPalette::WindowText);
  m_plot->setBackground(pal.brush(QPalette::Window));
  m_rect->setBackground(Qt::NoBrush);
  m_title->setTextColor(fg);
  QList<QCPAxis*> axes = {m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft)};
  if (m_scale) axes << m_scale->axis();
  for (QCPAxis* axis : axes) {
    axis->setBasePen(QPen(fg));
    axis->setTickPen(QPen(fg));
    axis->setTickLabelColor(fg);
    axis->setLabelColor(fg);
  }
}

QString HeatmapView::cellText(int row, int col) const {
  if (row < 0 || col < 0 || row >= m_data.q || col >= m_data.k) return {};
  const QString pair = QStringLiteral("%1 → %2: ")
                           .arg(axisLabel(m_data.queryLabels.value(row), 40),
                                axisLabel(m_data.keyLabels.value(col), 40));
  if (isMasked(row, col)) return pair + QStringLiteral("masked");
  const float v = m_data.values[size_t(row) * m_data.k + col];
  const QString number = QString::number(v, 'f', 4);
  return pair + (m_data.valueName == "weight" ? number : m_data.valueName + ' ' + number);
}

void HeatmapView::onMouseMove(QMouseEvent* event) {
  const QPointF pos = event->position();
  if (!m_rect->rect().contains(pos.toPoint())) {
    QToolTip::hideText();
    return;
  }
  const int col = int(std::lround(m_rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x())));
  const int row = int(std::lround(m_rect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y())));
  QString text = cellText(row, col);
  if (!text.isEmpty() && !m_data.hoverNote.isEmpty()) text = m_data.hoverNote + '\n' + text;
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

}  // namespace headmap::ui
