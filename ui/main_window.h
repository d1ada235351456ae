#pragma once
// Wires the pieces together: text line → controller → views, controls → options, menus → store
// and exporter. It holds no attention logic of its own.
#include <QMainWindow>
#include <functional>

#include "ui/app_settings.h"
#include "ui/attention_controller.h"
#include "ui/model_store.h"

class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QStackedWidget;

namespace headmap::ui {

class ControlsPanel;
class CompareView;
class CompareSession;
class HeadGridView;
class HeadStatsView;
class HeatmapView;
class TokenChipsWidget;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  static constexpr int kMaxChars = 20000;  // longer pastes are cut with a visible notice

  // settings == nullptr: nothing is read or saved (tests, --screenshot).
  explicit MainWindow(AppSettings* settings = nullptr, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Modal dialogs off (tests, --screenshot): errors go to errorReported and the notice bar only;
  // a file with several layers opens its first one.
  void setDialogsEnabled(bool enabled) { m_dialogs = enabled; }
  bool openPath(const QString& path);  // false: the previous model stays
  void loadDefaultModel();             // embedded model, else a random 64/4 layer with a notice
  void setText(const QString& text);
  void setViewOptions(const ViewOptions& options);
  bool waitForIdle(int timeoutMs = 30000) {
    return m_controller->waitForIdle(timeoutMs) && compareControllerIdle(timeoutMs);
  }
  // Non-empty: compare the main text (A) with this one (B) side by side, with A − B.
  void setCompareText(const QString& text);
  // Compare the current model (A) with a second model of the same layers × heads (B) on the same
  // text (or on the second sentence when one is given). false: refused, nothing changes.
  bool openCompareModel(const QString& path);
  void clearCompareModel();
  CompareSession* compareSession() const { return m_compareSession; }
  bool exportImageTo(const QString& path, double scale = 1.0);
  bool exportDataTo(const QString& path);  // .npy or .csv of the current layer

  ModelStore* store() const { return m_store; }
  AttentionController* controller() const { return m_controller; }
  ControlsPanel* controls() const { return m_controls; }
  TokenChipsWidget* chips() const { return m_chips; }
  HeatmapView* heatmapView() const { return m_single; }
  HeadGridView* gridView() const { return m_grid; }
  HeadStatsView* statsView() const { return m_stats; }
  CompareView* compareView() const { return m_compare; }
  QLineEdit* compareEdit() const { return m_compareText; }
  const AttentionFrame& compareFrame() const;
  QDockWidget* statsDock() const { return m_statsDock; }
  bool exportStatsTo(const QString& path);  // CSV of the head statistics table
  QLineEdit* textEdit() const { return m_text; }
  const AttentionFrame& frame() const { return m_frame; }
  QString noticeText() const;
  double lastComputeMs() const { return m_frame.computeMs; }
  double lastRenderMs() const { return m_renderMs; }

 signals:
  void errorReported(const QString& message);
  void frameRendered();

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  bool compareControllerIdle(int timeoutMs);
  void buildUi();
  void buildMenus();
  void rebuildRecentMenu();
  void onModelChanged();
  void onTextEdited(const QString& text);
  void onControlsChanged();
  void onFrame(const AttentionFrame& frame);
  void render();
  bool renderCompare(const ViewOptions& view);
  void updateStatus();
  void showNotice(const QString& text);
  void reportError(const QString& title, const QString& message);
  // Runs an export; an exception becomes an "Export failed" message. Returns whether it wrote.
  bool exportReporting(const std::function<void()>& write);
  void openDialog();
  void newRandomLayerDialog();
  void exportImageDialog();
  void exportDataDialog();
  void exportStatsDialog();
  void compareModelDialog();
  void showHead(int layer, int head);
  bool handleNavigationKey(QKeyEvent* event);

  AppSettings* m_settings = nullptr;
  SavedState m_state;
  bool m_dialogs = true;
  ModelStore* m_store = nullptr;
  AttentionController* m_controller = nullptr;
  QLineEdit* m_text = nullptr;
  TokenChipsWidget* m_chips = nullptr;
  ControlsPanel* m_controls = nullptr;
  QStackedWidget* m_stack = nullptr;
  HeatmapView* m_single = nullptr;
  HeadGridView* m_grid = nullptr;
  HeadStatsView* m_stats = nullptr;
  CompareView* m_compare = nullptr;
  QLineEdit* m_compareText = nullptr;
  CompareSession* m_compareSession = nullptr;  // B: a second sentence and/or a second model
  QDockWidget* m_statsDock = nullptr;
  QLabel* m_notice = nullptr;
  QLabel* m_modelLabel = nullptr;
  QLabel* m_tokensLabel = nullptr;
  QLabel* m_timingLabel = nullptr;
  QMenu* m_recentMenu = nullptr;
  AttentionFrame m_frame;
  QString m_persistentNotice;  // e.g. "default model missing: random layer" stays visible
  double m_renderMs = 0;
};

}  // namespace headmap::ui
