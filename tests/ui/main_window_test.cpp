// The window end to end on the offscreen platform: a model loads, masks reach the view, exports
// write valid files, and failures keep the previous model and leave no partial files.
#include "ui/main_window.h"

#include <QCheckBox>
#include <QDir>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "ui/app_settings.h"
#include "ui/controls_panel.h"
#include "ui/head_grid_view.h"
#include "ui/heatmap_view.h"
#include "ui/token_chips_widget.h"

using namespace headmap::ui;

class MainWindowTest : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<MainWindow> m_window;
  QTemporaryDir m_dir;

  void settle() { QVERIFY(m_window->waitForIdle(30000)); }

 private slots:
  void init() {
    m_window = std::make_unique<MainWindow>();
    m_window->setDialogsEnabled(false);
    m_window->resize(1000, 700);
    m_window->show();
    QVERIFY(m_window->store()->loadRandom(64, 4, 1));
    m_window->setText("the cat sat on the mat");
    settle();
  }
  void cleanup() { m_window.reset(); }

  void modelLoadsAndShowsOneCellPerTokenPair() {
    QVERIFY(m_window->store()->hasModel());
    QCOMPARE(m_window->store()->info().heads, 4);
    QCOMPARE(int(m_window->frame().tokens.size()), 6);
    QCOMPARE(m_window->chips()->count(), 6);
    const HeatmapData& d = m_window->heatmapView()->data();
    QCOMPARE(d.q, 6);
    QCOMPARE(d.k, 6);
    for (int r = 0; r < d.q; ++r) {  // softmax rows sum to 1
      double sum = 0;
      for (int c = 0; c < d.k; ++c) sum += d.values[r * d.k + c];
      QVERIFY2(std::abs(sum - 1.0) < 1e-4,
               qPrintable(QString("row %1 sums to %2").arg(r).arg(sum)));
    }
  }

  void causalToggleMasksTheUpperTriangle() {
    HeatmapView* view = m_window->heatmapView();
    QVERIFY(!view->isMasked(0, 5));
    m_window->controls()->causalBox()->setChecked(true);
    settle();
    const HeatmapData& d = view->data();
    for (int r = 0; r < d.q; ++r)
      for (int c = 0; c < d.k; ++c) {
        QCOMPARE(view->isMasked(r, c), c > r);
        if (c > r) QCOMPARE(d.values[r * d.k + c], 0.f);
      }
    QCOMPARE(d.values[0], 1.f);  // the first query can only attend to itself
    m_window->controls()->causalBox()->setChecked(false);
    settle();
    QVERIFY(!view->isMasked(0, 5));
  }

  void paddingChipsMaskTheirColumns() {
    m_window->chips()->setPadded(2, true);
    m_window->chips()->setPadded(4, true);
    settle();
    HeatmapView* view = m_window->heatmapView();
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c) QCOMPARE(view->isMasked(r, c), c == 2 || c == 4);
    // The padding toggle switches the marks off without forgetting them.
    m_window->controls()->paddingBox()->setChecked(false);
    settle();
    QVERIFY(!view->isMasked(0, 2));
    QCOMPARE(m_window->chips()->paddedPositions(), (std::vector<int>{2, 4}));
  }

  void gridShowsEveryHeadAndClickOpensOne() {
    ViewOptions o = m_window->controls()->options();
    o.mode = HeadMode::Grid;
    m_window->setViewOptions(o);
    settle();
    QCOMPARE(m_window->gridView()->count(), 4);
    QCOMPARE(m_window->gridView()->view(3)->data().title, QStringLiteral("L0 H3"));
    emit m_window->gridView()->view(2)->clicked();
    QCOMPARE(m_window->controls()->options().mode, HeadMode::Single);
    QCOMPARE(m_window->controls()->options().head, 2);
  }

  void arrowKeysStepHeads() {
    QCOMPARE(m_window->controls()->options().head, 0);
    QTest::keyClick(m_window->textEdit(), Qt::Key_Down);
    QCOMPARE(m_window->controls()->options().head, 1);
    QTest::keyClick(m_window->textEdit(), Qt::Key_Up);
    QTest::keyClick(m_window->textEdit(), Qt::Key_Up);
    QCOMPARE(m_window->controls()->options().head, 3);  // wraps
  }

  void newerTextSupersedesOlder() {
    QSignalSpy frames(m_window->controller(), &AttentionController::frameReady);
    for (int i = 1; i <= 20; ++i) m_window->setText(QString("w ").repeated(i).trimmed());
    settle();
    QCOMPARE(int(m_window->frame().tokens.size()), 20);
    QVERIFY2(frames.count() <= 2, qPrintable(QString("%1 frames").arg(frames.count())));
  }

  // Issue #5: a keystroke must repaint within a frame, so a model that computes fast is not
  // debounced; before its first frame (unknown cost) it is.
  void fastModelsAreNotDebounced() {
    AttentionController* c = m_window->controller();
    QVERIFY2(m_window->frame().computeMs < AttentionController::kInstantMs,
             qPrintable(QString("%1 ms").arg(m_window->frame().computeMs)));
    QCOMPARE(c->textDelayMs(), 0);
    QVERIFY(m_window->store()->loadRandom(64, 4, 2));
    QCOMPARE(c->textDelayMs(), AttentionController::kDebounceMs);
    settle();
    QCOMPARE(c->textDelayMs(), 0);
  }

  void badFileKeepsTheModelAndText() {
    const auto before = m_window->store()->current().model;
    const QString bad = m_dir.filePath("broken.safetensors");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a safetensors file");
    f.close();
    QSignalSpy errors(m_window.get(), &MainWindow::errorReported);
    QVERIFY(!m_window->openPath(bad));
    QCOMPARE(errors.count(), 1);
    QVERIFY2(errors.first().first().toString().contains("broken.safetensors"),
             qPrintable(errors.first().first().toString()));
    QCOMPARE(m_window->store()->current().model, before);
    QCOMPARE(m_window->textEdit()->text(), QStringLiteral("the cat sat on the mat"));
    m_window->setText("still working here");
    settle();
    QCOMPARE(int(m_window->frame().tokens.size()), 3);
  }

  void randomLayerRejectsIndivisibleDModel() {
    const auto before = m_window->store()->current().model;
    QSignalSpy failed(m_window->store(), &ModelStore::loadFailed);
    QVERIFY(!m_window->store()->loadRandom(10, 4, 1));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(m_window->store()->current().model, before);
  }

  void exportsValidPngSvgPdf() {
    const QString png = m_dir.filePath("map.png");
    QVERIFY(m_window->exportImageTo(png, 2.0));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 1000);  // 2x scale of a 620-px tile

    const QString svg = m_dir.filePath("map.svg");
    QVERIFY(m_window->exportImageTo(svg));
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    const QByteArray svgBytes = svgFile.readAll();
    QVERIFY(svgBytes.startsWith("<?xml") || svgBytes.startsWith("<svg"));
    QXmlStreamReader xml(svgBytes);
    QString root;
    while (!xml.atEnd()) {
      if (xml.readNext() == QXmlStreamReader::StartElement && root.isEmpty())
        root = xml.name().toString();
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(root, QStringLiteral("svg"));
    QVERIFY(svgBytes.contains("mat"));  // token labels are text

    const QString pdf = m_dir.filePath("map.pdf");
    QVERIFY(m_window->exportImageTo(pdf));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const QByteArray pdfBytes = pdfFile.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));
  }

  void exportsCsvWithTokenHeaders() {
    const QString csv = m_dir.filePath("map.csv");
    QVERIFY(m_window->exportDataTo(csv));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4 * 7);  // 4 heads x (header + 6 rows)
    QCOMPARE(lines[0], QStringLiteral("head,query,the,cat,sat,on,the,mat"));
    QVERIFY(lines[1].startsWith("0,the,"));
    QCOMPARE(lines[1].split(',').size(), 8);
  }

  void failedExportLeavesNoFile() {
    // A folder that cannot hold files whoever runs the test (root ignores permission bits):
    // its path is an existing regular file.
    QTemporaryDir dir;
    const QString blocker = dir.filePath("plain.txt");
    QFile f(blocker);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    QSignalSpy errors(m_window.get(), &MainWindow::errorReported);
    for (const QString& name : {"a.png", "a.svg", "a.pdf"})
      QVERIFY(!m_window->exportImageTo(blocker + '/' + name));
    QVERIFY(!m_window->exportDataTo(blocker + "/a.csv"));
    QVERIFY(!m_window->exportDataTo(blocker + "/a.npy"));
    QVERIFY(!m_window->exportImageTo(dir.filePath("a.bmp")));  // unknown type
    QCOMPARE(errors.count(), 6);
    QVERIFY(errors.first().first().toString().contains("plain.txt/a.png"));
    // Nothing else appeared: no partial output, no temporary left behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{"plain.txt"});
  }

  void hugePasteIsCutWithANotice() {
    m_window->setText(QString("w ").repeated(50000));  // 100,000 characters
    QCOMPARE(m_window->textEdit()->text().size(), MainWindow::kMaxChars);
    QVERIFY2(m_window->noticeText().contains("cut"), qPrintable(m_window->noticeText()));
    settle();  // 10,000 tokens, more than the display limit
    QCOMPARE(int(m_window->frame().tokens.size()), AttentionController::kMaxTokens);
    QVERIFY2(m_window->noticeText().contains("4096"), qPrintable(m_window->noticeText()));
    QCOMPARE(m_window->chips()->count(), TokenChipsWidget::kMaxChips);  // the rest summarised
  }

  void emptyTextShowsAHintNotACrash() {
    m_window->setText("");
    settle();
    QVERIFY(!m_window->frame().ok());
    QVERIFY(!m_window->noticeText().isEmpty());
  }

  void corruptSettingsAreResetWithANotice() {
    const QString ini = m_dir.filePath("settings.ini");
    QFile f(ini);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("[view]\nmode=banana\nstage=99\ncolormap=rainbow\ncausal=maybe\n[input]\ntext=hello\n");
    f.close();
    AppSettings settings(ini);
    QStringList notices;
    const SavedState state = settings.load(&notices);
    QCOMPARE(notices.size(), 4);
    QCOMPARE(state.view.mode, HeadMode::Single);
    QCOMPARE(state.view.stage, headmap::ScoreStage::Softmax);
    QCOMPARE(state.view.colormap, Colormap::Viridis);
    QCOMPARE(state.text, QStringLiteral("hello"));
    MainWindow window(&settings);  // starts, and says what it reset
    QVERIFY(window.noticeText().contains("reset"));
  }

  void settingsRoundTrip() {
    AppSettings settings(m_dir.filePath("roundtrip.ini"));
    SavedState s;
    s.text = "a b c";
    s.view.colormap = Colormap::Magma;
    s.view.causal = true;
    s.view.mode = HeadMode::Grid;
    s.recent = AppSettings::withRecent({"/x", "/y"}, "/y");
    settings.save(s);
    QStringList notices;
    const SavedState back = settings.load(&notices);
    QVERIFY(notices.isEmpty());
    QCOMPARE(back.text, s.text);
    QCOMPARE(back.view.colormap, Colormap::Magma);
    QVERIFY(back.view.causal);
    QCOMPARE(back.view.mode, HeadMode::Grid);
    QCOMPARE(back.recent, (QStringList{"/y", "/x"}));
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
