// `headmap --screenshot` end to end: the real binary renders a PNG and exits 0, or exits
// non-zero with a message when the model cannot be loaded.
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

class ScreenshotTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;

  static QProcessEnvironment environment(const QString& home) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CACHE_HOME", home + "/cache");  // the default model is extracted here
    env.insert("XDG_CONFIG_HOME", home + "/config");
    return env;
  }

  int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr) {
    QProcess process;
    process.setProcessEnvironment(environment(m_dir.path()));
    process.start(HEADMAP_GUI_PATH, args);
    if (!process.waitForFinished(120000)) {
      process.kill();
      return -100;
    }
    if (out) *out = process.readAllStandardOutput();
    if (err) *err = process.readAllStandardError();
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  }

 private slots:
  void rendersTheDefaultWindow() {
    const QString png = m_dir.filePath("shot.png");
    QByteArray out, err;
    QCOMPARE(
        run({"--screenshot", png, "--text", "the cat sat on the mat", "--timings"}, &out, &err), 0);
    const QImage image(png);
    QVERIFY2(!image.isNull(), err.constData());
    QCOMPARE(image.size(), QSize(1200, 800));
    // Not a blank window: the heatmap brings many distinct colours.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 4)
      for (int x = 0; x < image.width(); x += 4) colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 20, qPrintable(QString("%1 colours").arg(colours.size())));
    const QJsonObject timings = QJsonDocument::fromJson(out.trimmed()).object();
    QVERIFY2(timings.contains("compute_ms") && timings.contains("render_ms"), out.constData());
    QCOMPARE(timings.value("tokens").toInt() > 0, true);
  }

  void rendersTheGrid() {
    const QString png = m_dir.filePath("grid.png");
    QCOMPARE(run({"--screenshot", png, "--grid", "--size", "900x700"}), 0);
    QCOMPARE(QImage(png).size(), QSize(900, 700));
  }

  void rendersTheAnalysisViews() {
    const QString text = "the cat sat on the mat. the cat sat on the mat.";
    const QList<QStringList> views{
        {"--view", "overview"},
        {"--view", "stats"},
        {"--rollout"},
        {"--compare-text", "the dog sat on the mat. the dog sat on the mat."}};
    for (const QStringList& view : views) {
      const QString png = m_dir.filePath(view.join('_').remove('-').left(20) + ".png");
      QCOMPARE(run(QStringList{"--screenshot", png, "--text", text} + view), 0);
      QVERIFY2(!QImage(png).isNull(), qPrintable(view.join(' ')));
    }
    QByteArray err;
    QVERIFY(run({"--screenshot", m_dir.filePath("bad.png"), "--view", "bogus"}, nullptr, &err) !=
            0);
    QVERIFY2(err.contains("bogus"), err.constData());
  }

  void refusesACompareModelOfAnotherShape() {
    const QString png = m_dir.filePath("never_compare.png");
    QByteArray err;
    const QString layer =
        QStringLiteral(HEADMAP_FIXTURES_DIR "/attention/safetensors/mha_state_dict.safetensors");
    const int code = run({"--screenshot", png, "--compare-model", layer}, nullptr, &err);
    QVERIFY2(code > 0, qPrintable(QString("exit %1").arg(code)));
    QVERIFY2(err.contains("same shape") && err.contains("1 layers × 4 heads"), err.constData());
    QVERIFY(!QFile::exists(png));
  }

  void failsWithAMessageOnABadModel() {
    const QString bad = m_dir.filePath("bad.safetensors");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x08\x00\x00\x00\x00\x00\x00\x00{not json", 17);
    f.close();
    const QString png = m_dir.filePath("never.png");
    QByteArray err;
    const int code = run({bad, "--screenshot", png}, nullptr, &err);
    QVERIFY2(code > 0, qPrintable(QString("exit %1").arg(code)));
    QVERIFY2(err.contains("bad.safetensors"), err.constData());
    QVERIFY(!QFile::exists(png));
  }
};

QTEST_MAIN(ScreenshotTest)
#include "screenshot_test.moc"
