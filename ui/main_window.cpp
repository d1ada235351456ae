#include "ui/main_window.h"

#include <QAction>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>
#include <stdexcept>

#include "ui/compare_session.h"
#include "ui/compare_view.h"
#include "ui/controls_panel.h"
#include "ui/frame_maps.h"
#include "ui/head_grid_view.h"
#include "ui/head_stats_view.h"
#include "ui/heatmap_view.h"
#include "ui/resources_init.h"
#include "ui/token_chips_widget.h"

namespace headmap::ui {

static QString comparePlaceholder() {
  return QObject::tr(
      "Compare with… (a second sentence: A, B and A − B; File ▸ Compare with model "
      "for a second model)");
}

MainWindow::MainWindow(AppSettings* settings, QWidget* parent)
    : QMainWindow(parent), m_settings(settings) {
  initResources();
  if (m_settings) {
    QStringList notices;
    m_state = m_settings->load(&notices);
    if (!notices.isEmpty()) m_persistentNotice = notices.join("; ");
  }
  m_store = new ModelStore(this);
  m_controller = new AttentionController(this);
  m_compareSession = new CompareSession(this);
  buildUi();
  buildMenus();
  connect(m_store, &ModelStore::modelChanged, this, &MainWindow::onModelChanged);
  connect(m_store, &ModelStore::loadStarted, this,
          [this](const QString& path) { m_modelLabel->setText(tr("Loading %1…").arg(path)); });
  connect(m_store, &ModelStore::loadFailed, this, [this](const QString& message) {
    updateStatus();  // the previous model's line replaces "Loading …"
    reportError(tr("Cannot open the model"), message);
  });
  connect(m_controller, &AttentionController::frameReady, this, &MainWindow::onFrame);
  connect(m_compareSession, &CompareSession::frameReady, this, &MainWindow::render);
  connect(m_compareSession, &CompareSession::modelBChanged, this, &MainWindow::render);
  connect(m_compareSession, &CompareSession::loadFailed, this,
          [this](const QString& message) { reportError(tr("Cannot compare"), message); });
  m_controls->setOptions(m_state.view);
  m_text->setText(m_state.text);
  m_controller->setText(m_state.text);
  if (!m_state.geometry.isEmpty())
    restoreGeometry(m_state.geometry);
  else
    resize(1200, 800);
  showNotice(QString());
}

MainWindow::~MainWindow() = default;

void MainWindow::buildUi() {
  setWindowTitle(QStringLiteral("headmap"));
  setAcceptDrops(true);
  auto* central = new QWidget(this);
  auto* column = new QVBoxLayout(central);
  column->setContentsMargins(6, 6, 6, 0);
  m_text = new QLineEdit(central);
  m_text->setPlaceholderText(tr("Type a sentence…"));
  m_text->setMaxLength(1 << 20);  // QLineEdit's default (32767) would cut pastes silently
  m_text->setClearButtonEnabled(true);
  m_text->installEventFilter(this);
  column->addWidget(m_text);
  m_compareText = new QLineEdit(central);
  m_compareText->setPlaceholderText(comparePlaceholder());
  m_compareText->setClearButtonEnabled(true);
  column->addWidget(m_compareText);
  m_chips = new TokenChipsWidget(central);
  column->addWidget(m_chips);
  m_notice = new QLabel(central);
  m_notice->setWordWrap(true);
  m_notice->setStyleSheet(
      "QLabel { background: #fff4ce; color: #3d2e00; border: 1px solid #e0c060;"
      " border-radius: 4px; padding: 3px 6px; }");
  column->addWidget(m_notice);

  auto* splitter = new QSplitter(Qt::Horizontal, central);
  m_controls = new ControlsPanel(splitter);
  m_stack = new QStackedWidget(splitter);
  m_single = new HeatmapView(HeatmapView::Style::Full, m_stack);
  m_grid = new HeadGridView(m_stack);
  m_stack->addWidget(m_single);
  m_stack->addWidget(m_grid);
  m_compare = new CompareView(m_stack);
  m_stack->addWidget(m_compare);
  splitter->addWidget(m_controls);
  splitter->addWidget(m_stack);
  splitter->setStretchFactor(1, 1);
  splitter->setCollapsible(1, false);
  column->addWidget(splitter, 1);
  setCentralWidget(central);

  m_modelLabel = new QLabel(this);
  m_tokensLabel = new QLabel(this);
  m_timingLabel = new QLabel(this);
  statusBar()->addWidget(m_modelLabel, 1);
  statusBar()->addPermanentWidget(m_tokensLabel);
  statusBar()->addPermanentWidget(m_timingLabel);

  connect(m_text, &QLineEdit::textChanged, this, &MainWindow::onTextEdited);
  connect(m_compareText, &QLineEdit::textChanged, this, [this](const QString& text) {
    m_compareSession->setTextB(text.left(kMaxChars));
    render();
  });
  connect(m_chips, &TokenChipsWidget::paddingChanged, this, &MainWindow::onControlsChanged);
  connect(m_controls, &ControlsPanel::optionsChanged, this, &MainWindow::onControlsChanged);
  connect(m_grid, &HeadGridView::headClicked, this, [this](int index) {
    const ViewOptions o = m_controls->options();
    const int heads = std::max(1, m_store->info().heads);
    if (o.mode == HeadMode::Overview)
      showHead(index / heads, index % heads);  // cells are layer-major
    else
      showHead(o.layer, index);
  });

  // Hidden until asked for (View menu), so the heatmap keeps the room by default.
  m_statsDock = new QDockWidget(tr("Head statistics"), this);
  m_statsDock->setObjectName(QStringLiteral("headStatsDock"));
  m_stats = new HeadStatsView(m_statsDock);
  m_statsDock->setWidget(m_stats);
  addDockWidget(Qt::BottomDockWidgetArea, m_statsDock);
  m_statsDock->hide();
  // Long inputs compute the statistics of every layer only while the table is open.
  // (Not while the window itself goes away: closing hides the dock during destruction.)
  connect(m_statsDock, &QDockWidget::visibilityChanged, this, [this] {
    if (isVisible()) onControlsChanged();
  });
  connect(m_stats, &HeadStatsView::headSelected, this, &MainWindow::showHead);
  connect(m_stats, &HeadStatsView::exportRequested, this, &MainWindow::exportStatsDialog);
}

void MainWindow::showHead(int layer, int head) {
  ViewOptions o = m_controls->options();
  o.mode = HeadMode::Single;
  o.layer = layer;
  o.head = head;
  m_controls->setOptions(o);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
  m_recentMenu = file->addMenu(tr("Open &recent"));
  rebuildRecentMenu();
  file->addAction(tr("New &random layer…"), QKeySequence(tr("Ctrl+N")), this,
                  &MainWindow::newRandomLayerDialog);
  file->addAction(tr("Default &model"), this, &MainWindow::loadDefaultModel);
  file->addSeparator();
  file->addAction(tr("&Export image…"), QKeySequence(tr("Ctrl+E")), this,
                  &MainWindow::exportImageDialog);
  file->addAction(tr("Export &data…"), QKeySequence(tr("Ctrl+Shift+E")), this,
                  &MainWindow::exportDataDialog);
  file->addAction(tr("Export head &statistics…"), this, &MainWindow::exportStatsDialog);
  file->addSeparator();
  file->addAction(tr("&Compare with model…"), this, &MainWindow::compareModelDialog);
  file->addAction(tr("S&top comparing models"), this, &MainWindow::clearCompareModel);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  // Arrow keys are handled in keyPressEvent: as menu shortcuts they would steal the text cursor.
  view->addAction(tr("Next head (→ / ↓)"), this, [this] { m_controls->stepHead(1); });
  view->addAction(tr("Previous head (← / ↑)"), this, [this] { m_controls->stepHead(-1); });
  view->addAction(tr("Next layer (PageDown)"), this, [this] { m_controls->stepLayer(1); });
  view->addAction(tr("Previous layer (PageUp)"), this, [this] { m_controls->stepLayer(-1); });
  view->addAction(tr("Reset zoom (double-click)"), QKeySequence(tr("Ctrl+0")), this,
                  [this] { m_single->resetView(); });
  view->addSeparator();
  QAction* stats = m_statsDock->toggleViewAction();
  stats->setShortcut(QKeySequence(tr("Ctrl+T")));
  view->addAction(stats);
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  for (const QString& path : m_state.recent)
    m_recentMenu->addAction(path, this, [this, path] { openPath(path); });
  m_recentMenu->setEnabled(!m_state.recent.isEmpty());
}

void MainWindow::onModelChanged() {
  const ModelInfo info = m_store->info();
  m_controls->setModelShape(info.layers, info.heads, info.causalBuiltIn);
  setWindowTitle(QStringLiteral("headmap — %1").arg(m_store->displayName()));
  m_controller->setModel(m_store->current());
  m_compareSession->setModelA(m_store->current());
  onControlsChanged();
  updateStatus();
}

void MainWindow::setText(const QString& text) { m_text->setText(text); }

void MainWindow::setCompareText(const QString& text) { m_compareText->setText(text); }

bool MainWindow::openCompareModel(const QString& path) {
  if (!m_compareSession->openModelB(path)) return false;
  m_compareText->setPlaceholderText(
      tr("B = %1 on the same sentence; or type a second sentence for B")
          .arg(m_compareSession->nameB(QString())));
  return true;
}

void MainWindow::clearCompareModel() {
  m_compareSession->clearModelB();
  m_compareText->setPlaceholderText(comparePlaceholder());
  render();
}

const AttentionFrame& MainWindow::compareFrame() const { return m_compareSession->frame(); }

bool MainWindow::compareControllerIdle(int timeoutMs) {
  return m_compareSession->controller()->waitForIdle(timeoutMs);
}

void MainWindow::setViewOptions(const ViewOptions& options) { m_controls->setOptions(options); }

void MainWindow::onTextEdited(const QString& text) {
  if (text.size() > kMaxChars) {
    // Re-entering setText calls this again with the cut text; the notice survives it.
    const int total = int(text.size());
    m_text->setText(text.left(kMaxChars));
    showNotice(tr("The text was cut to its first %1 of %2 characters").arg(kMaxChars).arg(total));
    return;
  }
  m_state.text = text;
  m_controller->setText(text);
  m_compareSession->setTextA(text);
}

void MainWindow::onControlsChanged() {
  const ViewOptions view = m_controls->options();
  ComputeOptions compute;
  compute.layer = view.layer;
  compute.causal = view.causal;
  if (view.padding) compute.paddedKeys = m_chips->paddedPositions();
  compute.scale = view.scale;
  compute.stage = view.stage;
  compute.mode = view.mode;  // long inputs compute only what is on screen
  compute.head = view.head;
  compute.analysis = !m_statsDock->isHidden();
  m_controller->setOptions(compute);
  m_compareSession->setOptions(compute);
  m_single->setColormap(view.colormap);
  m_grid->setColormap(view.colormap);
  m_compare->setColormap(view.colormap);
  m_state.view = view;
  render();  // head, mode and range changes need no recompute
}

void MainWindow::onFrame(const AttentionFrame& frame) {
  m_frame = frame;
  m_chips->setTokens(frame.tokens);
  showNotice(frame.ok() ? frame.notice : frame.error);
  m_stats->setStats(frame.stats, frame.ok() ? frame.analysisNote : QString());
  render();
}

void MainWindow::render() {
  if (!m_frame.ok() || m_frame.tokens.empty()) return;
  const ViewOptions view = m_controls->options();
  std::vector<HeatmapData> maps = visibleData(m_frame, view, m_store->displayName());
  if (maps.empty()) {
    if (view.mode == HeadMode::Rollout || view.mode == HeadMode::Overview)
      showNotice(m_frame.analysisNote);
    return;
  }
  if (renderCompare(view)) return;
  QElapsedTimer timer;
  timer.start();
  int nonFinite = 0;
  if (view.mode == HeadMode::Grid || view.mode == HeadMode::Overview) {
    m_stack->setCurrentWidget(m_grid);
    m_grid->setColumns(view.mode == HeadMode::Overview ? m_store->info().heads : 0);
    m_grid->setHeads(std::move(maps));
    for (int h = 0; h < m_grid->count(); ++h) nonFinite += m_grid->view(h)->nonFiniteCount();
  } else {
    m_stack->setCurrentWidget(m_single);
    m_single->setData(std::move(maps.front()));
    if (view.mode == HeadMode::Single) m_stats->showHead(m_frame.layer.layer, view.head);
    nonFinite = m_single->nonFiniteCount();
  }
  m_renderMs = timer.nsecsElapsed() / 1e6;
  if (nonFinite > 0)
    showNotice(tr("%1 cells are NaN or infinite (shown grey): the weights or inputs hold "
                  "non-finite values")
                   .arg(nonFinite));
  updateStatus();
  emit frameRendered();
}

// The compare view replaces the single map when a second sentence is given (grid and overview
// stay as they are: a difference of every head at once would not be readable).
bool MainWindow::renderCompare(const ViewOptions& view) {
  if (!m_compareSession->active() || view.mode == HeadMode::Grid || view.mode == HeadMode::Overview)
    return false;
  const AttentionFrame& frameB = m_compareSession->frame();
  if (!frameB.ok()) {
    showNotice(tr("Comparison (B): %1").arg(frameB.error));
    return false;
  }
  std::vector<HeatmapData> a = visibleData(m_frame, view, m_store->displayName());
  std::vector<HeatmapData> b =
      visibleData(frameB, view, m_compareSession->nameB(m_store->displayName()));
  if (a.empty() || b.empty()) return false;
  m_stack->setCurrentWidget(m_compare);
  QElapsedTimer timer;
  timer.start();
  m_compare->setMaps(std::move(a.front()), std::move(b.front()));
  m_renderMs = timer.nsecsElapsed() / 1e6;
  showNotice(m_compare->message());
  updateStatus();
  emit frameRendered();
  return true;
}

void MainWindow::updateStatus() {
  const ModelInfo info = m_store->info();
  const int dk = info.heads ? info.dModel / info.heads : 0;
  m_modelLabel->setText(tr("%1 · %2 layers · d_model %3 · %4 heads · d_k %5")
                            .arg(m_store->displayName())
                            .arg(info.layers)
                            .arg(info.dModel)
                            .arg(info.heads)
                            .arg(dk));
  m_tokensLabel->setText(tr("%n tokens", nullptr, int(m_frame.tokens.size())));
  m_timingLabel->setText(tr("compute %1 ms · render %2 ms")
                             .arg(m_frame.computeMs, 0, 'f', 1)
                             .arg(m_renderMs, 0, 'f', 1));
}

void MainWindow::showNotice(const QString& text) {
  QStringList parts;
  if (!m_persistentNotice.isEmpty()) parts << m_persistentNotice;
  if (!text.isEmpty()) parts << text;
  m_notice->setText(parts.join('\n'));
  m_notice->setVisible(!parts.isEmpty());
}

QString MainWindow::noticeText() const {
  return m_notice->isHidden() ? QString() : m_notice->text();
}

void MainWindow::reportError(const QString& title, const QString& message) {
  emit errorReported(message);
  if (m_dialogs)
    QMessageBox::critical(this, title, message);
  else
    showNotice(message);
}

}  // namespace headmap::ui
