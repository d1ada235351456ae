// MainWindow's user actions: opening models (files, drops, recent, default, random), exports and
// their dialogs, keyboard navigation and closing. main_window.cpp builds and wires the window.
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QMessageBox>
#include <QMimeData>
#include <stdexcept>

#include "ui/compare_session.h"
#include "ui/controls_panel.h"
#include "ui/default_model.h"
#include "ui/dialogs.h"
#include "ui/exporter.h"
#include "ui/frame_maps.h"
#include "ui/head_stats_view.h"
#include "ui/heatmap_view.h"
#include "ui/main_window.h"

#include <functional>
#include "ui/model_store.h"

namespace headmap::ui {

void MainWindow::loadDefaultModel() {
  QString why;
  const QString folder = extractDefaultModel(&why);
  if (!folder.isEmpty()) {
    if (m_store->load(folder)) {
      m_persistentNotice.clear();
      return;
    }
    why = m_store->lastError();
  }
  m_store->loadRandom(64, 4, 1);
  m_persistentNotice =
      tr("Default model unavailable (%1): showing a random 64-dim, 4-head layer").arg(why);
  showNotice(QString());
}

bool MainWindow::openPath(const QString& path) {
  LoadOptions options;
  try {
    const auto layers = listAttentionLayers(path.toStdString());
    if (layers.size() > 1) {
      QStringList names;
      for (const auto& c : layers)
        names << QStringLiteral("%1  (%2, d_model %3)")
                     .arg(QString::fromStdString(c.prefix.empty() ? "(top level)" : c.prefix),
                          QString::fromStdString(c.layout))
                     .arg(c.dModel);
      const int choice = m_dialogs ? askAttentionLayer(this, names) : 0;
      if (choice < 0) return false;
      options.layer = layers[choice].prefix;
    }
  } catch (const std::exception&) {
    // Not a bare tensor file (or unreadable): loadModel reports the real problem below.
  }
  if (!m_store->load(path, options)) return false;
  m_state.recent = AppSettings::withRecent(m_state.recent, path);
  rebuildRecentMenu();
  return true;
}

void MainWindow::compareModelDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Compare with model (same layers × heads)"), QString(),
      tr("Models (*.safetensors *.bin *.pt *.pth config.json);;All files (*)"));
  if (path.isEmpty()) return;
  openCompareModel(QFileInfo(path).fileName() == "config.json" ? QFileInfo(path).absolutePath()
                                                               : path);
}

void MainWindow::openDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open weights"), QString(),
      tr("Models (*.safetensors *.bin *.pt *.pth config.json);;All files (*)"));
  if (path.isEmpty()) return;
  // A config.json stands for its Hugging Face folder.
  openPath(QFileInfo(path).fileName() == "config.json" ? QFileInfo(path).absolutePath() : path);
}

void MainWindow::newRandomLayerDialog() {
  static RandomLayerRequest last;
  const auto request = askRandomLayer(this, last);
  if (!request) return;
  last = *request;
  if (request->heads <= 0 || request->dModel % request->heads != 0) {
    reportError(tr("Invalid layer"), tr("d_model (%1) must be divisible by the number of heads "
                                        "(%2)")
                                         .arg(request->dModel)
                                         .arg(request->heads));
    return;
  }
  m_store->loadRandom(request->dModel, request->heads, request->seed);
}

bool MainWindow::exportImageTo(const QString& path, double scale) {
  const ViewOptions view = m_controls->options();
  ImageExport request;
  request.maps = visibleData(m_frame, view, m_store->displayName());
  request.colormap = view.colormap;
  request.title = mapTitle(m_store->displayName(), m_frame, tr("all heads"));
  if (view.mode == HeadMode::Overview) {
    request.title = tr("%1 · every layer (rows) × head (columns)").arg(m_store->displayName());
    request.columns = m_store->info().heads;
  }
  request.scale = scale;
  if (!m_frame.ok()) request.maps.clear();
  return exportReporting([&] { exportImage(request, path); });
}

bool MainWindow::exportDataTo(const QString& path) {
  return exportReporting([&] {
    const HeadMaps& maps = stageMaps(m_frame.layer.result, m_frame.options.stage);
    if (QFileInfo(path).suffix().toLower() == "csv")
      exportCsv(maps, tokenLabels(m_frame.tokens), path);
    else
      exportNpy(maps, path);
  });
}

bool MainWindow::exportStatsTo(const QString& path) {
  return exportReporting([&] {
    if (m_stats->model()->rowCount() == 0)
      throw std::runtime_error(tr("There are no head statistics to export").toStdString());
    m_stats->exportCsvTo(path);
  });
}

bool MainWindow::exportReporting(const std::function<void()>& write) {
  try {
    write();
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Export failed"), QString::fromStdString(e.what()));
    return false;
  }
}

void MainWindow::exportStatsDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export head statistics"),
                                   QStringLiteral("head_stats.csv"), tr("CSV table (*.csv)"));
  if (!path.isEmpty()) exportStatsTo(path);
}

void MainWindow::exportImageDialog() {
  QString selected;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export image"), QStringLiteral("attention.png"),
      tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"), &selected);
  if (path.isEmpty()) return;
  double scale = 1;
  if (path.endsWith(".png", Qt::CaseInsensitive) && (scale = askPngScale(this)) <= 0) return;
  exportImageTo(path, scale);
}

void MainWindow::exportDataDialog() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export data"), QStringLiteral("attention.npy"),
      tr("NumPy array (heads, q, k) (*.npy);;CSV with token headers (*.csv)"));
  if (!path.isEmpty()) exportDataTo(path);
}

bool MainWindow::handleNavigationKey(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Up:
      m_controls->stepHead(-1);
      return true;
    case Qt::Key_Down:
      m_controls->stepHead(1);
      return true;
    case Qt::Key_PageUp:
      m_controls->stepLayer(-1);
      return true;
    case Qt::Key_PageDown:
      m_controls->stepLayer(1);
      return true;
    default:
      return false;
  }
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Left)
    m_controls->stepHead(-1);
  else if (event->key() == Qt::Key_Right)
    m_controls->stepHead(1);
  else if (!handleNavigationKey(event))
    QMainWindow::keyPressEvent(event);
}

// The text line keeps ←/→ for its cursor; ↑/↓ and PageUp/PageDown still step heads and layers.
bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_text && event->type() == QEvent::KeyPress &&
      handleNavigationKey(static_cast<QKeyEvent*>(event)))
    return true;
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls() && event->mimeData()->urls().first().isLocalFile())
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = event->mimeData()->urls().first().toLocalFile();
  event->acceptProposedAction();
  openPath(QFileInfo(path).fileName() == "config.json" ? QFileInfo(path).absolutePath() : path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_settings) {
    m_state.geometry = saveGeometry();
    m_state.view = m_controls->options();
    m_settings->save(m_state);
  }
  QMainWindow::closeEvent(event);
}

}  // namespace headmap::ui
