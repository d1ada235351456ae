// The head statistics table and the rollout aggregation in the window: the rows are core's
// computeHeadStats for the same run (computed on the worker), sorting works, selecting a row
// shows that head, the CSV export is core's writeStatsCsv, and rollout equals attentionRollout.
#include "ui/head_stats_view.h"

#include <qcustomplot.h>

#include <QDockWidget>
#include <QFile>
#include <QGridLayout>
#include <QImage>
#include <QTableView>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>
#include <cmath>
#include <sstream>

#include "core/analysis/rollout.h"
#include "core/analysis/stats_table.h"
#include "ui/controls_panel.h"
#include "ui/head_grid_view.h"
#include "ui/heatmap_view.h"
#include "ui/main_window.h"

using namespace headmap;
using namespace headmap::ui;

namespace {
const QString kText = QStringLiteral("the cat sat on the mat. the cat sat on the mat.");
}

class HeadStatsViewTest : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<MainWindow> m_window;
  QTemporaryDir m_dir;

  void settle() { QVERIFY(m_window->waitForIdle(60000)); }

  static QString words(int n) {
    QStringList w;
    for (int i = 0; i < n; ++i) w << QStringLiteral("w%1").arg(i % 37);
    return w.join(' ');
  }
  std::vector<Token> tokensOf(const QString& text) const {
    return m_window->store()->current().tokenizer->encode(text.toStdString());
  }
  ModelRun runOn(const QString& text, std::vector<int>* ids = nullptr) const {
    const LoadedModel& model = m_window->store()->current();
    ModelInput input;
    input.tokens = tokensOf(text);
    if (ids)
      for (const Token& t : input.tokens) ids->push_back(t.id);
    RunOptions options;
    options.logits = false;
    options.attention.causal = m_window->frame().options.causal;  // as the window computed it
    return model.model->run(input, options);
  }

  // The reference: every layer of the same model on the same text, without the app.
  ModelRun referenceRun(std::vector<int>* ids = nullptr) const {
    const LoadedModel& model = m_window->store()->current();
    ModelInput input;
    input.tokens = model.tokenizer->encode(kText.toStdString());
    if (ids)
      for (const Token& t : input.tokens) ids->push_back(t.id);
    RunOptions options;
    options.logits = false;
    return model.model->run(input, options);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("XDG_CACHE_HOME", m_dir.filePath("cache").toUtf8());  // default model extraction
  }

  void init() {
    m_window = std::make_unique<MainWindow>();
    m_window->setDialogsEnabled(false);
    m_window->resize(1000, 800);
    m_window->show();
    m_window->loadDefaultModel();
    QVERIFY2(m_window->store()->info().layers == 2, "the embedded 2-layer model is needed");
    m_window->setText(kText);
    settle();
  }
  void cleanup() { m_window.reset(); }

  void rowsEqualComputeHeadStats() {
    std::vector<int> ids;
    const std::vector<HeadStats> expected = computeHeadStats(referenceRun(&ids), ids);
    const ModelInfo info = m_window->store()->info();
    QCOMPARE(int(expected.size()), info.layers * info.heads);
    HeadStatsModel* model = m_window->statsView()->model();
    QCOMPARE(model->rowCount(), int(expected.size()));
    QCOMPARE(model->columnCount(), 8);
    bool anyInduction = false;
    for (int r = 0; r < model->rowCount(); ++r)
      for (int c = 0; c < model->columnCount(); ++c) {
        const std::optional<double> want = statsValue(expected[r], c);
        const QVariant got = model->index(r, c).data(Qt::UserRole);
        QCOMPARE(got.isValid(), want.has_value());
        if (!want) {
          QCOMPARE(model->index(r, c).data().toString(), QString());
          continue;
        }
        if (c == 7) anyInduction = true;
        QVERIFY2(
            std::abs(got.toDouble() - *want) < 1e-9,
            qPrintable(
                QString("row %1 col %2: %3 vs %4").arg(r).arg(c).arg(got.toDouble()).arg(*want)));
      }
    QVERIFY2(anyInduction, "the repeated sentence must give induction scores");
  }

  void sortsAndSelectingARowShowsThatHead() {
    HeadStatsView* view = m_window->statsView();
    view->table()->sortByColumn(2, Qt::DescendingOrder);  // entropy, highest first
    for (int r = 1; r < view->proxy()->rowCount(); ++r)
      QVERIFY(view->proxy()->index(r - 1, 2).data(Qt::UserRole).toDouble() >=
              view->proxy()->index(r, 2).data(Qt::UserRole).toDouble());
    // Pick the proxy row of a head that is not the one shown now (L0 H0).
    int row = 0;
    while (view->proxy()->index(row, 0).data(Qt::UserRole).toInt() == 0 &&
           view->proxy()->index(row, 1).data(Qt::UserRole).toInt() == 0)
      ++row;
    const int layer = view->proxy()->index(row, 0).data(Qt::UserRole).toInt();
    const int head = view->proxy()->index(row, 1).data(Qt::UserRole).toInt();
    view->table()->selectRow(row);
    const ViewOptions o = m_window->controls()->options();
    QCOMPARE(o.mode, HeadMode::Single);
    QCOMPARE(o.layer, layer);
    QCOMPARE(o.head, head);
    settle();
    QVERIFY2(
        m_window->heatmapView()->data().title.contains(QString("L%1 H%2").arg(layer).arg(head)),
        qPrintable(m_window->heatmapView()->data().title));
    // The shown map is that head's weights in the reference run.
    const ModelRun run = referenceRun();
    const HeadMaps& maps = run.layers[layer].result.weights;
    const HeatmapData& shown = m_window->heatmapView()->data();
    QCOMPARE(shown.q, maps.q);
    const size_t cells = size_t(maps.q) * maps.k;
    for (size_t i = 0; i < cells; ++i)
      QVERIFY(std::abs(shown.values[i] - maps.values[head * cells + i]) < 1e-6f);
    // The recompute for the new layer keeps the selection on the same head.
    const QModelIndex current = view->proxy()->mapToSource(view->table()->currentIndex());
    QCOMPARE(view->model()->stats()[current.row()].layer, layer);
    QCOMPARE(view->model()->stats()[current.row()].head, head);
    // Stepping heads from the keyboard moves the highlighted row along, without a loop back.
    m_window->controls()->stepHead(1);
    settle();
    const int next = (head + 1) % m_window->store()->info().heads;
    const QModelIndex moved = view->proxy()->mapToSource(view->table()->currentIndex());
    QCOMPARE(view->model()->stats()[moved.row()].head, next);
    QCOMPARE(m_window->controls()->options().head, next);
  }

  void exportsCoreCsvAtomically() {
    const QString path = m_dir.filePath("stats.csv");
    QVERIFY(m_window->exportStatsTo(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    std::vector<int> ids;
    std::ostringstream expected;
    writeStatsCsv(expected, computeHeadStats(referenceRun(&ids), ids));
    QCOMPARE(file.readAll().toStdString(), expected.str());
    QVERIFY(!m_window->exportStatsTo(m_dir.filePath("no/such/dir/stats.csv")));
    QVERIFY(!QFile::exists(m_dir.filePath("no/such/dir/stats.csv")));
  }

  void rolloutEqualsAttentionRollout() {
    ViewOptions o = m_window->controls()->options();
    o.mode = HeadMode::Rollout;
    m_window->setViewOptions(o);
    settle();
    const RowMatrixXf expected = attentionRollout(referenceRun());
    const HeatmapData& shown = m_window->heatmapView()->data();
    QCOMPARE(shown.q, int(expected.rows()));
    QCOMPARE(shown.k, int(expected.cols()));
    float maxDiff = 0;
    for (int r = 0; r < shown.q; ++r)
      for (int c = 0; c < shown.k; ++c)
        maxDiff = std::max(maxDiff, std::abs(shown.values[r * shown.k + c] - expected(r, c)));
    QVERIFY2(maxDiff < 1e-6f, qPrintable(QString("max |diff| %1").arg(maxDiff)));
    QVERIFY(shown.title.contains("rollout"));
  }

  void overviewHasOneCellPerLayerAndHeadAndClickOpensIt() {
    ViewOptions o = m_window->controls()->options();
    o.mode = HeadMode::Overview;
    m_window->setViewOptions(o);
    settle();
    const ModelInfo info = m_window->store()->info();
    HeadGridView* grid = m_window->gridView();
    QVERIFY(grid->isVisible());
    QCOMPARE(grid->count(), info.layers * info.heads);
    const ModelRun run = referenceRun();
    std::vector<int> ids;
    referenceRun(&ids);
    const std::vector<HeadStats> stats = computeHeadStats(run, ids);
    // Cell (layer 1, head 2) sits at row 1, column 2 and shows that head's weights.
    const int index = 1 * info.heads + 2;
    const HeatmapData& cell = grid->view(index)->data();
    QCOMPARE(cell.title, QStringLiteral("L1 H2"));
    const HeadMaps& maps = run.layers[1].result.weights;
    const size_t cells = size_t(maps.q) * maps.k;
    QCOMPARE(cell.values.size(), cells);
    for (size_t i = 0; i < cells; ++i)
      QVERIFY(std::abs(cell.values[i] - maps.values[2 * cells + i]) < 1e-6f);
    // Its hover note carries its statistics.
    const HeadStats& s = stats[index];
    QCOMPARE(s.layer * info.heads + s.head, index);
    QVERIFY2(cell.hoverNote.contains(QString::number(s.entropy, 'f', 3)),
             qPrintable(cell.hoverNote));
    QVERIFY(cell.hoverNote.contains(QString::number(s.meanDistance, 'f', 3)));
    // Rows are layers: the grid lays the cells out heads-wide.
    auto* layout = qobject_cast<QGridLayout*>(grid->layout());
    QVERIFY(layout);
    int row = -1, column = -1, rs = 0, cs = 0;
    layout->getItemPosition(layout->indexOf(grid->view(index)), &row, &column, &rs, &cs);
    QCOMPARE(row, 1);
    QCOMPARE(column, 2);
    emit grid->view(index)->clicked();
    QCOMPARE(m_window->controls()->options().mode, HeadMode::Single);
    QCOMPARE(m_window->controls()->options().layer, 1);
    QCOMPARE(m_window->controls()->options().head, 2);
  }

  void overviewExportsOneFigure() {
    ViewOptions o = m_window->controls()->options();
    o.mode = HeadMode::Overview;
    m_window->setViewOptions(o);
    settle();
    const QString path = m_dir.filePath("overview.png");
    QVERIFY(m_window->exportImageTo(path));
    QImage image(path);
    QVERIFY(!image.isNull());
    QVERIFY2(image.width() > image.height(), "4 heads wide, 2 layers high");
  }

  // Above the old 256-token cap: statistics, rollout and overview are there, streamed out of
  // the run, and equal the whole-run computations on the same input.
  void longInputsHaveStatsRolloutAndOverview() {
    QVERIFY(m_window->store()->loadRandom(16, 2, 3));  // unbounded positions
    const QString text = words(300);
    m_window->setText(text);
    settle();
    QVERIFY(m_window->frame().ok());
    QCOMPARE(int(m_window->frame().tokens.size()), 300);
    QVERIFY(m_window->frame().analysisNote.isEmpty());
    std::vector<int> ids;
    const ModelRun reference = runOn(text, &ids);
    const std::vector<HeadStats> expected =
        computeHeadStats(reference, idsFromPieces(tokensOf(text)));
    QCOMPARE(m_window->statsView()->model()->rowCount(), int(expected.size()));
    const std::vector<HeadStats>& got = m_window->frame().stats;
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      QVERIFY(std::abs(got[i].entropy - expected[i].entropy) < 1e-6);
      QVERIFY(std::abs(got[i].meanDistance - expected[i].meanDistance) < 1e-6);
      QCOMPARE(got[i].induction.has_value(), expected[i].induction.has_value());
      if (got[i].induction) QVERIFY(std::abs(*got[i].induction - *expected[i].induction) < 1e-6);
    }

    ViewOptions o = m_window->controls()->options();
    o.mode = HeadMode::Rollout;
    m_window->setViewOptions(o);
    settle();
    const RowMatrixXf rollout = attentionRollout(reference);
    const HeatmapData& shown = m_window->heatmapView()->data();
    QCOMPARE(shown.q, 300);
    float maxDiff = 0;
    for (int r = 0; r < shown.q; ++r)
      for (int c = 0; c < shown.k; ++c)
        maxDiff = std::max(maxDiff, std::abs(shown.values[r * shown.k + c] - rollout(r, c)));
    QVERIFY2(maxDiff < 1e-6f, qPrintable(QString("max |diff| %1").arg(maxDiff)));

    o.mode = HeadMode::Overview;
    m_window->setViewOptions(o);
    settle();
    HeadGridView* grid = m_window->gridView();
    QVERIFY(grid->isVisible());
    QCOMPARE(grid->count(), 2);
    // Head 1 max-pooled to 96 × 96 bins: bin (i, j) is the largest weight of its block.
    const HeatmapData& cell = grid->view(1)->data();
    QCOMPARE(cell.q, kThumbnailCells);
    const HeadMaps& maps = reference.layers[0].result.weights;
    for (int i : {0, 40, 95})
      for (int j : {0, 17, 95}) {
        float best = 0;
        for (int q = i * 300 / 96; q < (i + 1) * 300 / 96; ++q)
          for (int k = j * 300 / 96; k < (j + 1) * 300 / 96; ++k)
            best = std::max(best, maps.head(1)(q, k));
        QCOMPARE(cell.values[i * cell.k + j], best);
      }
    QVERIFY(cell.hoverNote.contains("L0 H1"));
  }

  // So long that one layer's maps pass the whole-layer bound: only the shown head is kept, and
  // another head or the mean is computed when asked for.
  void veryLongInputsKeepOnlyTheShownHead() {
    QVERIFY(m_window->store()->loadRandom(16, 2, 3));
    const QString text = words(3000);  // 2 heads × 3000² floats = 72 MB > kWholeLayerBytes
    m_window->setText(text);
    settle();
    QVERIFY(m_window->frame().ok());
    const AttentionResult& kept = m_window->frame().layer.result;
    QCOMPARE(kept.weights.heads, 1);
    QCOMPARE(kept.keptHeads, std::vector<int>{0});
    const ModelRun reference = runOn(text);
    const HeadMaps& maps = reference.layers[0].result.weights;

    ViewOptions o = m_window->controls()->options();
    o.mode = HeadMode::Single;
    o.head = 1;
    const quint64 before = m_window->controller()->generation();
    m_window->setViewOptions(o);
    settle();
    QVERIFY(m_window->controller()->generation() > before);  // recomputed on demand
    QCOMPARE(m_window->frame().layer.result.keptHeads, std::vector<int>{1});
    const HeatmapData& shown = m_window->heatmapView()->data();
    QCOMPARE(shown.q, 3000);
    float maxDiff = 0;
    for (size_t i = 0; i < shown.values.size(); i += 997)
      maxDiff =
          std::max(maxDiff, std::abs(shown.values[i] - maps.values[maps.values.size() / 2 + i]));
    QVERIFY2(maxDiff < 1e-6f, qPrintable(QString("max |diff| %1").arg(maxDiff)));

    // Zoom and pan at this size: the wheel zooms in, a drag pans, labels thin to what fits.
    HeatmapView* view = m_window->heatmapView();
    QCPAxisRect* rect = view->plot()->axisRect();
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    const QPointF centre = rect->rect().center();
    for (int i = 0; i < 20; ++i) {
      QWheelEvent wheel(centre, view->plot()->mapToGlobal(centre), QPoint(), QPoint(0, 120),
                        Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
      QApplication::sendEvent(view->plot(), &wheel);
    }
    QVERIFY(view->isZoomed());
    QVERIFY2(x->range().size() < 300, qPrintable(QString::number(x->range().size())));
    const double lower = x->range().lower;
    QTest::mousePress(view->plot(), Qt::LeftButton, {}, centre.toPoint());
    QTest::mouseMove(view->plot(), centre.toPoint() + QPoint(-200, 0));
    QTest::mouseRelease(view->plot(), Qt::LeftButton, {}, centre.toPoint() + QPoint(-200, 0));
    QVERIFY2(x->range().lower > lower,
             qPrintable(QString("%1 -> %2").arg(lower).arg(x->range().lower)));
    auto ticker =
        qSharedPointerDynamicCast<QCPAxisTickerText>(rect->axis(QCPAxis::atLeft)->ticker());
    QVERIFY(ticker);
    QVERIFY2(ticker->ticks().size() < 3000, qPrintable(QString::number(ticker->ticks().size())));
    view->resetView();

    o.mode = HeadMode::Mean;
    m_window->setViewOptions(o);
    settle();
    const HeatmapData& mean = m_window->heatmapView()->data();
    QCOMPARE(mean.q, 3000);
    maxDiff = 0;
    const size_t cells = size_t(3000) * 3000;
    for (size_t i = 0; i < cells; i += 1009)
      maxDiff = std::max(maxDiff,
                         std::abs(mean.values[i] - (maps.values[i] + maps.values[cells + i]) / 2));
    QVERIFY2(maxDiff < 1e-6f, qPrintable(QString("max |diff| %1").arg(maxDiff)));
    // Beyond kAlwaysAnalyseTokens the statistics of every layer wait for the table.
    QVERIFY(m_window->frame().stats.empty());
    QVERIFY(!m_window->frame().analysisNote.isEmpty());
    m_window->statsDock()->show();
    settle();
    QCOMPARE(int(m_window->frame().stats.size()), 2);
    QCOMPARE(m_window->statsView()->model()->rowCount(), 2);

    // A grid of raw scores would keep every head's stages (2 × 4 × 3000² floats): a notice says
    // so instead of a silent blank view. The statistics dock stays open: its table refilled by
    // each new frame must not pull the window back to one head.
    o.mode = HeadMode::Grid;
    o.stage = ScoreStage::Raw;
    m_window->setViewOptions(o);
    settle();

    QVERIFY2(m_window->noticeText().contains("grid"),
             qPrintable(QString("notice '%1', frame notice '%2', mode %3 stage %4 error '%5'")
                            .arg(m_window->noticeText(), m_window->frame().notice)
                            .arg(int(m_window->frame().options.mode))
                            .arg(int(m_window->frame().options.stage))
                            .arg(m_window->frame().error)));
    QCOMPARE(m_window->frame().layer.result.raw.heads, 1);
  }
};

QTEST_MAIN(HeadStatsViewTest)
#include "head_stats_view_test.moc"
