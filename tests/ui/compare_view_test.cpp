// Comparing two inputs, or two models of the same shape: the difference map is A − B of the two
// shown maps (and of independent computations), centred on 0, with differing tokens marked;
// unequal lengths give a message; a model B of another shape is refused and changes nothing.
#include "ui/compare_view.h"

#include <qcustomplot.h>

#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>

#include "core/model/load.h"
#include "ui/compare_session.h"
#include "ui/controls_panel.h"
#include "ui/main_window.h"

using namespace headmap;
using namespace headmap::ui;

class CompareViewTest : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<MainWindow> m_window;

  void settle() { QVERIFY(m_window->waitForIdle(60000)); }
  static QString fixture(const char* relative) {
    return QStringLiteral(HEADMAP_FIXTURES_DIR "/") + relative;
  }

 private slots:
  void init() {
    m_window = std::make_unique<MainWindow>();
    m_window->setDialogsEnabled(false);
    m_window->resize(1100, 900);
    m_window->show();
    QVERIFY(m_window->store()->loadRandom(64, 4, 7));  // whitespace tokens: equal counts
    m_window->setText("the doctor said she was tired");
    settle();
  }
  void cleanup() { m_window.reset(); }

  void differenceIsAMinusB() {
    m_window->setCompareText("the doctor said he was tired");
    settle();
    CompareView* view = m_window->compareView();
    QVERIFY(view->isVisible());
    QVERIFY(view->message().isEmpty());
    // B computed independently of the window, same model and options, head 0.
    const ComputeOptions options = m_window->controller()->options();
    const AttentionFrame b =
        computeFrame(m_window->store()->current(), "the doctor said he was tired", options, 1);
    QVERIFY(b.ok());
    const HeatmapData& a = view->viewA()->data();
    const HeatmapData& d = view->difference()->data();
    QCOMPARE(d.q, 6);
    QCOMPARE(d.k, 6);
    const size_t cells = 36;
    float maxDiff = 0, largest = 0;
    for (size_t i = 0; i < cells; ++i) {
      const float expected = a.values[i] - b.layer.result.weights.values[i];  // head 0
      maxDiff = std::max(maxDiff, std::abs(d.values[i] - expected));
      largest = std::max(largest, std::abs(expected));
    }
    QVERIFY2(maxDiff < 1e-6f, qPrintable(QString("max |diff| %1").arg(maxDiff)));
    QVERIFY2(largest > 1e-3f, "the two sentences must attend differently");
    QVERIFY(d.diverging);
    // Only the differing token is marked.
    QCOMPARE(d.keyLabels.value(3), QStringLiteral("she | he"));
    QCOMPARE(d.keyLabels.value(2), a.keyLabels.value(2));
    // The colour range is symmetric about 0.
    auto* map = qobject_cast<QCPColorMap*>(view->difference()->plot()->plottable(0));
    QVERIFY(map);
    QCOMPARE(map->dataRange().lower, -map->dataRange().upper);
    QVERIFY(map->dataRange().upper >= largest - 1e-6);
  }

  void unequalLengthsSayWhy() {
    m_window->setCompareText("the doctor said");
    settle();
    CompareView* view = m_window->compareView();
    QVERIFY(view->isVisible());
    QVERIFY(view->message().contains("equal length"));
    QVERIFY(view->difference()->isHidden());
    QVERIFY(m_window->noticeText().contains("equal length"));
    // Clearing the second sentence goes back to the single map.
    m_window->setCompareText(QString());
    settle();
    QVERIFY(!view->isVisible());
  }

  void secondModelOnTheSameSentence() {
    const QString pathB = fixture("attention/safetensors/mha_state_dict.safetensors");
    QVERIFY(m_window->openCompareModel(pathB));
    settle();
    CompareView* view = m_window->compareView();
    QVERIFY(view->isVisible());
    QVERIFY(view->message().isEmpty());
    QVERIFY(view->viewB()->data().title.contains("mha_state_dict"));
    // B = the second model on A's sentence, computed independently of the window; head 0.
    const LoadedModel b = loadModel(pathB.toStdString());
    const AttentionFrame frameB =
        computeFrame(b, "the doctor said she was tired", m_window->controller()->options(), 1);
    QVERIFY(frameB.ok());
    const HeatmapData& a = view->viewA()->data();
    const HeatmapData& d = view->difference()->data();
    QCOMPARE(d.q, 6);
    float maxDiff = 0, largest = 0;
    for (size_t i = 0; i < 36; ++i) {
      const float expected = a.values[i] - frameB.layer.result.weights.values[i];
      maxDiff = std::max(maxDiff, std::abs(d.values[i] - expected));
      largest = std::max(largest, std::abs(expected));
    }
    QVERIFY2(maxDiff < 1e-6f, qPrintable(QString("max |diff| %1").arg(maxDiff)));
    QVERIFY2(largest > 1e-3f, "two different layers must attend differently");
    // Typing changes both sides: B follows A's sentence.
    m_window->setText("the doctor said he was tired");
    settle();
    QCOMPARE(m_window->compareFrame().tokens.at(3).piece, std::string("he"));
    // Stopping the model comparison goes back to the single map.
    m_window->clearCompareModel();
    settle();
    QVERIFY(!view->isVisible());
  }

  void secondModelOfAnotherShapeIsRefused() {
    QVERIFY(
        m_window->openCompareModel(fixture("attention/safetensors/mha_state_dict.safetensors")));
    settle();
    QSignalSpy errors(m_window.get(), &MainWindow::errorReported);
    QVERIFY(!m_window->openCompareModel(fixture("models/gpt2")));  // 2 layers × 4 heads
    QCOMPARE(errors.count(), 1);
    const QString message = errors.first().first().toString();
    QVERIFY2(message.contains("2 layers × 4 heads") && message.contains("has 1 × 4"),
             qPrintable(message));
    // The previous model B is still compared.
    QVERIFY(m_window->compareSession()->nameB("A").contains("mha_state_dict"));
    QVERIFY(m_window->compareView()->isVisible());
  }

  void newModelAOfAnotherShapeStopsTheModelComparison() {
    QVERIFY(
        m_window->openCompareModel(fixture("attention/safetensors/mha_state_dict.safetensors")));
    settle();
    QSignalSpy errors(m_window.get(), &MainWindow::errorReported);
    QVERIFY(m_window->store()->loadRandom(64, 8, 3));  // 1 × 8 heads
    settle();
    QVERIFY(!m_window->compareSession()->hasModelB());
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.first().first().toString().contains("Stopped comparing models"));
    QVERIFY(!m_window->compareView()->isVisible());
  }
};

QTEST_MAIN(CompareViewTest)
#include "compare_view_test.moc"
