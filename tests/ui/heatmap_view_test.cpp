// HeatmapView draws what it is given: masks, labels, tooltips, non-finite cells, colormaps.
#include "ui/heatmap_view.h"

#include <qcustomplot.h>

#include <QtTest>
#include <cmath>
#include <limits>

#include "ui/colormaps.h"

using namespace headmap::ui;

namespace {

// Tick labels inside the visible range of an axis (what the user sees).
static int visibleLabels(QCPAxis* axis) {
  auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
  int count = 0;
  for (double key : ticker->ticks().keys()) count += axis->range().contains(key);
  return count;
}

static HeatmapData square(int n) {
  HeatmapData d;
  d.q = d.k = n;
  d.values.assign(size_t(n) * n, 0.5f);
  for (int i = 0; i < n; ++i) {
    d.queryLabels << QString("tok%1").arg(i);
    d.keyLabels << QString("tok%1").arg(i);
  }
  return d;
}

}  // namespace

class HeatmapViewTest : public QObject {
  Q_OBJECT
 private:
  static HeatmapData sample() {
    HeatmapData d;
    d.q = 2;
    d.k = 3;
    d.values = {0.5f, 0.25f, 0.25f, 0.12345f, 0.8f, 0.07655f};
    d.mask = {0, 0, 1, 0, 0, 0};
    d.queryLabels = {"the", " cat"};
    d.keyLabels = {"the", " cat", "sat"};
    d.title = "test";
    return d;
  }

 private slots:
  void tooltipNamesQueryKeyAndValue() {
    HeatmapView view;
    view.resize(400, 300);
    view.setData(sample());
    QCOMPARE(view.cellText(1, 0), QStringLiteral("cat → the: 0.1235"));
    QCOMPARE(view.cellText(0, 2), QStringLiteral("the → sat: masked"));
    QVERIFY(view.cellText(2, 0).isEmpty());
  }

  void maskedCellsAreNanNotZero() {
    HeatmapView view;
    view.resize(400, 300);
    view.setData(sample());
    QVERIFY(view.isMasked(0, 2));
    QVERIFY(!view.isMasked(0, 1));
    // The colour map holds NaN (drawn grey and hatched) where the mask is set.
    auto* map = qobject_cast<QCPColorMap*>(view.plot()->plottable(0));
    QVERIFY(map);
    QVERIFY(std::isnan(map->data()->cell(2, 0)));
    QCOMPARE(float(map->data()->cell(1, 1)), 0.8f);
    QCOMPARE(view.nonFiniteCount(), 0);
  }

  void rowZeroIsAtTheTop() {
    HeatmapView view;
    view.resize(400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(sample());
    QCPAxis* y = view.plot()->axisRect()->axis(QCPAxis::atLeft);
    QVERIFY(y->rangeReversed());
    QVERIFY(y->coordToPixel(0) < y->coordToPixel(1));
  }

  void nonFiniteValuesAreCounted() {
    HeatmapData d = sample();
    d.values[1] = std::numeric_limits<float>::quiet_NaN();
    d.values[4] = std::numeric_limits<float>::infinity();
    HeatmapView view;
    view.setData(d);
    QCOMPARE(view.nonFiniteCount(), 2);
  }

  void cellsStaySquare() {
    HeatmapData d = sample();
    HeatmapView view;
    view.resize(900, 300);  // much wider than tall
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(d);
    QCPAxisRect* rect = view.plot()->axisRect();
    const double cellW = double(rect->width()) / d.k;
    const double cellH = double(rect->height()) / d.q;
    QVERIFY2(std::abs(cellW - cellH) <= 2.0,
             qPrintable(QString("cell %1 x %2 px").arg(cellW).arg(cellH)));
  }

  void gradientsMatchPublishedEndpoints() {
    // viridis(0) = #440154, viridis(1) = #fde725; Blues(1) = #08306b (matplotlib / ColorBrewer).
    const QCPRange unit(0, 1);
    QCOMPARE(QColor(makeGradient(Colormap::Viridis).color(0, unit)).name(), QString("#440154"));
    QCOMPARE(QColor(makeGradient(Colormap::Viridis).color(1, unit)).name(), QString("#fde725"));
    QCOMPARE(QColor(makeGradient(Colormap::Magma).color(0, unit)).name(), QString("#000004"));
    QCOMPARE(QColor(makeGradient(Colormap::Blues).color(1, unit)).name(), QString("#08306b"));
    QCOMPARE(QColor(makeGradient(Colormap::Grayscale).color(0, unit)).name(), QString("#000000"));
    bool ok = true;
    colormapFromName("nope", &ok);
    QVERIFY(!ok);
  }

  void longTokensAreShortened() {
    QCOMPARE(axisLabel(" "), QStringLiteral("␣"));
    QCOMPARE(axisLabel("\n"), QStringLiteral("↵"));
    QCOMPARE(axisLabel(QString(30, 'x'), 10).size(), 10);
  }
  void wheelZoomsDragPansAndLabelsThin() {
    HeatmapView view;
    view.resize(600, 600);
    view.show();
    view.setData(square(120));
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCPAxisRect* rect = view.plot()->axisRect();
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    const int lineHeight = QFontMetrics(y->tickLabelFont()).height();
    // Unzoomed: 120 rows in ~500 px cannot all be labelled; the labels shown fit.
    QCOMPARE(x->range().size(), 120.0);
    QVERIFY(!view.isZoomed());
    const int before = visibleLabels(y);
    QVERIFY2(before * lineHeight <= rect->height() + lineHeight,
             qPrintable(QString("%1 labels of %2 px in %3 px")
                            .arg(before)
                            .arg(lineHeight)
                            .arg(rect->height())));
    QVERIFY(before < 120);
    // Wheel up over the centre of the matrix zooms in on both axes.
    const QPointF centre = rect->rect().center();
    for (int i = 0; i < 6; ++i) {
      QWheelEvent wheel(centre, view.plot()->mapToGlobal(centre), QPoint(), QPoint(0, 120),
                        Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
      QApplication::sendEvent(view.plot(), &wheel);
    }
    QVERIFY2(x->range().size() < 60, qPrintable(QString::number(x->range().size())));
    QVERIFY(y->range().size() < 60);
    QVERIFY(view.isZoomed());
    // Zoomed in, cells are larger: a larger share of the visible rows is labelled, still
    // within what fits.
    const int after = visibleLabels(y);
    QVERIFY(after * lineHeight <= rect->height() + lineHeight);
    QVERIFY2(after / y->range().size() > 1.5 * before / 120.0,
             qPrintable(QString("%1 labels for %2 rows, %3 for 120 unzoomed")
                            .arg(after)
                            .arg(y->range().size())
                            .arg(before)));
    // Drag pans; it never leaves the matrix.
    const double width = x->range().size();
    QTest::mousePress(view.plot(), Qt::LeftButton, {}, centre.toPoint());
    QTest::mouseMove(view.plot(), centre.toPoint() + QPoint(4000, 0));
    QTest::mouseRelease(view.plot(), Qt::LeftButton, {}, centre.toPoint() + QPoint(4000, 0));
    QVERIFY(x->range().lower >= -0.5 - 1e-9);
    QVERIFY(std::abs(x->range().size() - width) < 1e-6);
    // Zooming out never goes past the whole matrix; reset shows it all.
    view.resetView();
    QCOMPARE(x->range().size(), 120.0);
    QVERIFY(!view.isZoomed());
    QWheelEvent out(centre, view.plot()->mapToGlobal(centre), QPoint(), QPoint(0, -1200),
                    Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.plot(), &out);
    QCOMPARE(x->range().size(), 120.0);
    QCOMPARE(x->range().lower, -0.5);
  }

  // Above kPooledCells the view draws the visible window max-pooled to about a block per pixel:
  // a lone sharp weight must survive, fully masked blocks stay uncoloured (hatched), zooming in
  // shows exact cells again, and an export (level of detail off) gets every cell.
  void largeMapsArePooledToThePixelsAndZoomBackToCells() {
    const int n = 2048;
    HeatmapData d = square(n);
    std::fill(d.values.begin(), d.values.end(), 0.0001f);
    d.mask.assign(size_t(n) * n, 0);
    for (int r = 0; r < n; ++r)
      for (int c = r + 1; c < n; ++c) d.mask[size_t(r) * n + c] = 1;  // causal
    d.values[size_t(1500) * n + 1000] = 0.9f;  // one sharp weight below the diagonal
    HeatmapView view;
    view.resize(700, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(d);
    QVERIFY(view.pooled());
    auto* map = qobject_cast<QCPColorMap*>(view.plot()->plottable(0));
    QVERIFY(map);
    QCPAxisRect* rect = view.plot()->axisRect();
    const int drawnK = map->data()->keySize(), drawnQ = map->data()->valueSize();
    QVERIFY2(drawnK <= rect->width() + 1 && drawnK * 4 >= rect->width(),
             qPrintable(QString("%1 drawn columns for %2 px").arg(drawnK).arg(rect->width())));
    QVERIFY(drawnQ <= rect->height() + 1);
    // The block holding (1500, 1000) shows 0.9; a block above the diagonal is NaN (masked).
    int col = 0, row = 0;
    map->data()->coordToCell(1000, 1500, &col, &row);
    QCOMPARE(float(map->data()->cell(col, row)), 0.9f);
    map->data()->coordToCell(2000, 10, &col, &row);
    QVERIFY(std::isnan(map->data()->cell(col, row)));
    // Hover still reads the exact cell, not the block.
    QCOMPARE(view.cellText(1500, 1001), QStringLiteral("tok1500 → tok1001: 0.0001"));

    // Zoomed to 40 x 40 cells: exact cells, one per drawn cell.
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setRange(1479.5, 1519.5);
    x->setRange(979.5, 1019.5);
    view.plot()->replot();  // as after a wheel step or a drag
    QCOMPARE(map->data()->keySize(), 40);
    QCOMPARE(map->data()->valueSize(), 40);
    map->data()->coordToCell(1000, 1500, &col, &row);
    QCOMPARE(float(map->data()->cell(col, row)), 0.9f);
    map->data()->coordToCell(1001, 1500, &col, &row);
    QCOMPARE(float(map->data()->cell(col, row)), 0.0001f);

    view.setLevelOfDetail(false);
    QVERIFY(!view.pooled());
    QCOMPARE(map->data()->keySize(), n);
    QCOMPARE(map->data()->valueSize(), n);
  }
};

QTEST_MAIN(HeatmapViewTest)
#include "heatmap_view_test.moc"
