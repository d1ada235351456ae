#pragma once
// Runs Model::run off the GUI thread. A newer request supersedes an older one: at most one
// computation runs, and results of stale generations are dropped, so the window never waits for a
// sentence the user has already changed. Text edits start at once when the model computes in
// less than kInstantMs (keystroke to repaint is then compute + render, issue #5; a burst of keys
// costs at most one run whose result is dropped) and are debounced by kDebounceMs for slower
// models, where starting a run on the first key of a word would delay the word's own run.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <vector>

#include "core/analysis/head_stats.h"
#include "core/common/tensor.h"
#include "core/model/model.h"
#include "ui/frame_analysis.h"
#include "ui/view_options.h"

template <typename T>
class QFutureWatcher;

namespace headmap::ui {

struct AttentionFrame {
  quint64 generation = 0;
  std::vector<Token> tokens;
  // The selected layer only, with the maps it kept: every head for short inputs, the shown head
  // for long ones (layer.result.keptHeads; see ui/frame_analysis.h for the sizes).
  LayerAttention layer;
  int layerHeads = 0;  // heads of the model's layers (kept or not)
  // Whole-model analysis of the softmax weights (all layers), streamed out of the run on the
  // worker: no layer's maps are stored for it.
  std::vector<HeadStats> stats;     // one per (layer, head), layers ascending
  RowMatrixXf rollout;              // (n, n) across every layer; empty when not asked for
  RowMatrixXf layerMean;            // (n, n) selected layer's mean, when not every head is kept
  std::vector<PooledMap> overview;  // per (layer, head), layer-major: small maps, overview/grid
  QString analysisNote;             // why stats / rollout are missing, empty when present
  ComputeOptions options;
  double computeMs = 0;
  QString error;   // the model's refusal (empty text, too many tokens, bad ids)
  QString notice;  // e.g. tokens truncated to the model's limit
  bool ok() const { return error.isEmpty(); }
};

// What a delivered frame can show without a recompute when only ComputeOptions::mode or head
// change (long inputs keep only the maps the screen needs).
struct FrameCoverage {
  bool valid = false;
  std::vector<int> heads;  // kept heads of the selected layer
  int layerHeads = 0;
  bool analysis = false;  // statistics and overview of every layer
  bool rollout = false, layerMean = false;
  bool overview = false;     // thumbnails of every layer
  bool layerThumbs = false;  // thumbnails of the selected layer (grid of a long input)
  static FrameCoverage of(const AttentionFrame& frame);
  bool serves(const ComputeOptions& options) const;
};

class AttentionController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kDebounceMs = 100;
  static constexpr double kInstantMs = 200;
  // Long inputs run memory-bounded (ui/frame_analysis.h): up to 4,096 tokens the app keeps one
  // layer's or one head's maps, never every layer's.
  static constexpr int kMaxTokens = 4096;

  explicit AttentionController(QObject* parent = nullptr);
  ~AttentionController() override;

  void setModel(const LoadedModel& model);         // recomputes at once
  void setText(const QString& text);               // debounced
  void setOptions(const ComputeOptions& options);  // recomputes at once when they changed
  const ComputeOptions& options() const { return m_options; }
  bool busy() const;
  // Blocks (processing events) until the latest request has produced a frame; for tests and
  // --screenshot. Returns false on timeout.
  bool waitForIdle(int timeoutMs = 30000);
  quint64 generation() const { return m_generation; }
  // How long a text edit waits before computing: 0 after a fast frame, else kDebounceMs.
  int textDelayMs() const;

 signals:
  void frameReady(const headmap::ui::AttentionFrame& frame);

 private:
  void schedule(int delayMs);
  void start();
  void onFinished();

  LoadedModel m_model;
  QString m_text;
  ComputeOptions m_options;
  QTimer m_debounce;
  quint64 m_generation = 0;     // of the newest request
  quint64 m_delivered = 0;      // of the last frame emitted
  bool m_pending = false;       // a request is waiting for the running job to finish
  FrameCoverage m_coverage;     // what the last delivered frame can show
  double m_lastComputeMs = -1;  // of the last frame of the current model; < 0: none yet
  QFutureWatcher<AttentionFrame>* m_watcher = nullptr;
};

// The pure computation the worker runs; callable directly (tests, CLI-like use).
AttentionFrame computeFrame(const LoadedModel& model, const QString& text,
                            const ComputeOptions& options, quint64 generation);

}  // namespace headmap::ui

Q_DECLARE_METATYPE(headmap::ui::AttentionFrame)
