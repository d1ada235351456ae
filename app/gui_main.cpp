// headmap: the desktop app. Thin main: parse the command line, build the window, optionally
// render one screenshot and exit (tests, README).
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QIcon>
#include <QTextStream>
#include <cstdio>

#include "core/attention/parallel.h"
#include "ui/app_settings.h"
#include "ui/compare_session.h"
#include "ui/controls_panel.h"
#include "ui/main_window.h"
#include "ui/model_store.h"
#include "ui/resources_init.h"

using headmap::ui::HeadMode;
using headmap::ui::MainWindow;

namespace {

int fail(const QString& message) {
  QTextStream(stderr) << "headmap: " << message << '\n';
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  QElapsedTimer startup;
  startup.start();
  // Eigen's GEMMs allocate their packing buffers per call; without this each keystroke's run
  // pays fresh page faults (core/attention/parallel.h, docs/benchmarks.md).
  headmap::keepFreedMemory();
  QApplication app(argc, argv);
  headmap::ui::initResources();
  QApplication::setApplicationName("headmap");
  QApplication::setOrganizationName("headmap");
  QApplication::setApplicationVersion(HEADMAP_VERSION);
  QApplication::setWindowIcon(QIcon(":/icons/headmap.svg"));

  QCommandLineParser parser;
  parser.setApplicationDescription("Per-head attention heatmaps of Transformer models");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("PATH", "Model folder, .safetensors, .pt or llama2.c .bin",
                               "[PATH]");
  const QCommandLineOption screenshot("screenshot", "Render the window to OUT.png and exit.",
                                      "OUT.png");
  const QCommandLineOption text("text", "Sentence to show.", "TEXT");
  const QCommandLineOption layer("layer", "Layer to show.", "L");
  const QCommandLineOption head("head", "Head to show.", "H");
  const QCommandLineOption grid("grid", "Show every head of the layer.");
  const QCommandLineOption mean("mean", "Show the mean over heads.");
  const QCommandLineOption rollout("rollout", "Show the attention rollout across all layers.");
  const QCommandLineOption viewOption(
      "view", "Open a view: stats (the head statistics table) or overview (every layer × head).",
      "stats|overview");
  const QCommandLineOption compareText(
      "compare-text", "Second sentence: show A, B and the difference A − B.", "TEXT");
  const QCommandLineOption compareModel(
      "compare-model", "Second model (same layers × heads): show A, B and A − B.", "PATH");
  const QCommandLineOption dark("dark", "Use a dark palette.");
  const QCommandLineOption size("size", "Window size for --screenshot, e.g. 1200x800.", "WxH");
  const QCommandLineOption timings("timings",
                                   "With --screenshot: print compute/render ms as JSON.");
  parser.addOptions({screenshot, text, layer, head, grid, mean, rollout, viewOption, compareText,
                     compareModel, dark, size, timings});
  parser.process(app);

  if (parser.isSet(dark)) {
    app.setStyle("Fusion");
    QPalette pal;
    pal.setColor(QPalette::Window, QColor(37, 37, 40));
    pal.setColor(QPalette::WindowText, QColor(230, 230, 230));
    pal.setColor(QPalette::Base, QColor(25, 25, 28));
    pal.setColor(QPalette::AlternateBase, QColor(45, 45, 50));
    pal.setColor(QPalette::Text, QColor(230, 230, 230));
    pal.setColor(QPalette::Button, QColor(50, 50, 55));
    pal.setColor(QPalette::ButtonText, QColor(230, 230, 230));
    pal.setColor(QPalette::Mid, QColor(85, 85, 92));
    pal.setColor(QPalette::Highlight, QColor(80, 130, 210));
    pal.setColor(QPalette::HighlightedText, Qt::white);
    pal.setColor(QPalette::ToolTipBase, QColor(50, 50, 55));
    pal.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
    app.setPalette(pal);
  }

  const bool batch = parser.isSet(screenshot);
  headmap::ui::AppSettings settings;
  MainWindow window(batch ? nullptr : &settings);
  window.setDialogsEnabled(!batch);
  const QStringList args = parser.positionalArguments();
  if (!args.isEmpty()) {
    if (!window.openPath(args.first())) {
      if (batch) return fail(window.store()->lastError());
      window.loadDefaultModel();  // the dialog said why; keep the app usable
    }
  } else {
    window.loadDefaultModel();
  }
  if (parser.isSet(text)) window.setText(parser.value(text));
  if (parser.isSet(compareText)) window.setCompareText(parser.value(compareText));
  if (parser.isSet(compareModel) && !window.openCompareModel(parser.value(compareModel)) && batch)
    return fail(window.compareSession()->storeB()->lastError());
  headmap::ui::ViewOptions view = window.controls()->options();
  if (parser.isSet(layer)) view.layer = parser.value(layer).toInt();
  if (parser.isSet(head)) {
    view.head = parser.value(head).toInt();
    view.mode = HeadMode::Single;
  }
  if (parser.isSet(grid)) view.mode = HeadMode::Grid;
  if (parser.isSet(mean)) view.mode = HeadMode::Mean;
  if (parser.isSet(rollout)) view.mode = HeadMode::Rollout;
  if (parser.isSet(viewOption)) {
    const QString which = parser.value(viewOption);
    if (which == "stats")
      window.statsDock()->show();
    else if (which == "overview")
      view.mode = HeadMode::Overview;
    else
      return fail(QString("--view '%1' is not one of: stats, overview").arg(which));
  }
  window.setViewOptions(view);
  if (!batch) {
    window.show();
    return app.exec();
  }

  QSize windowSize(1200, 800);
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2)
      windowSize = QSize(wh[0].toInt(), wh[1].toInt()).expandedTo(QSize(400, 300));
  }
  window.resize(windowSize);
  window.show();
  if (!window.waitForIdle(60000)) return fail("timed out waiting for the attention computation");
  QApplication::processEvents();
  const double startupMs = startup.nsecsElapsed() / 1e6;
  const QString out = parser.value(screenshot);
  if (!window.grab().save(out, "PNG")) return fail(QString("cannot write %1").arg(out));
  if (parser.isSet(timings)) {
    std::printf(
        "{\"compute_ms\": %.3f, \"render_ms\": %.3f, \"startup_ms\": %.3f, \"tokens\": %d}\n",
        window.lastComputeMs(), window.lastRenderMs(), startupMs,
        int(window.frame().tokens.size()));
  }
  return 0;
}
