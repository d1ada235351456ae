// HeatmapView draws what it is given: masks, labels, tooltips, non-finite cells, colormaps.
#include "ui/heatmap_view.h"

#include <qcustomplot.h>

#include <QtTest>
#include <cmath>
#include <limits>

#include "ui/colormaps.h"

using namespace headmap::ui;

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
};

QTEST_MAIN(HeatmapViewTest)
#include "heatmap_view_test.moc"
