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
#include "ui/view_options.h"

template <typename T>
class QFutureWatcher;

namespace headmap::ui {

struct AttentionFrame {
  quint64 generation = 0;
  std::vector<Token> tokens;
  LayerAttention layer;  // the selected layer only
  // Whole-model analysis of the softmax weights (all layers), computed on the worker with the
  // run; empty when the input is longer than kMaxAnalysisTokens (see analysisNote).
  std::vector<HeadStats> stats;      // one per (layer, head), layers ascending
  RowMatrixXf rollout;               // (n, n) attention rollout across every layer
  std::vector<HeadMaps> allWeights;  // per layer (heads, n, n) softmax weights, for the overview
  QString analysisNote;              // why stats / rollout are missing, empty when present
  ComputeOptions options;
  double computeMs = 0;
  QString error;   // the model's refusal (empty text, too many tokens, bad ids)
  QString notice;  // e.g. tokens truncated to the model's limit
  bool ok() const { return error.isEmpty(); }
};

class AttentionController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kDebounceMs = 100;
  static constexpr double kInstantMs = 200;
  static constexpr int kMaxTokens = 1024;  // beyond this a heatmap is unreadable and n² grows fast
  // The statistics and the rollout need every layer's maps at once (layers × heads × n² floats);
  // beyond this many tokens only the selected layer is computed, so memory stays bounded.
  static constexpr int kMaxAnalysisTokens = 256;

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
  quint64 m_generation = 0;  // of the newest request
  quint64 m_delivered = 0;   // of the last frame emitted
  bool m_pending = false;    // a request is waiting for the running job to finish
  double m_lastComputeMs = -1;  // of the last frame of the current model; < 0: none yet
  QFutureWatcher<AttentionFrame>* m_watcher = nullptr;
};

// The pure computation the worker runs; callable directly (tests, CLI-like use).
AttentionFrame computeFrame(const LoadedModel& model, const QString& text,
                            const ComputeOptions& options, quint64 generation);

}  // namespace headmap::ui

Q_DECLARE_METATYPE(headmap::ui::AttentionFrame)
