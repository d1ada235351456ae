#pragma once
// Side B of a comparison: a second sentence under the same model, or the same (or a second)
// sentence under a second model of the same shape (layers × heads), e.g. two checkpoints of one
// training run. It owns B's model and B's controller; MainWindow forwards A's model, text and
// options and draws A, B and A − B from frame().
#include <QObject>
#include <QString>
#include <memory>

#include "ui/attention_controller.h"

namespace headmap::ui {

class ModelStore;

class CompareSession : public QObject {
  Q_OBJECT
 public:
  explicit CompareSession(QObject* parent = nullptr);

  void setModelA(const LoadedModel& model);  // drops model B when the shapes no longer agree
  void setTextA(const QString& text);
  void setTextB(const QString& text);  // empty: B reads A's text (with a model B)
  void setOptions(const ComputeOptions& options);
  // Loads model B off the GUI thread. false (loadFailed emitted, the previous B kept) when it
  // cannot be read or its layers × heads differ from A's.
  bool openModelB(const QString& path);
  void clearModelB();
  bool hasModelB() const;
  // Whether there is anything to compare: a second sentence, or a second model.
  bool active() const { return hasModelB() || !m_textB.trimmed().isEmpty(); }
  QString nameB(const QString& nameA) const;  // model B's name, or nameA without a model B
  const AttentionFrame& frame() const { return m_frame; }
  AttentionController* controller() const { return m_controller; }
  ModelStore* storeB() const { return m_storeB; }

 signals:
  void frameReady();
  void modelBChanged();
  void loadFailed(const QString& message);

 private:
  void update();                                      // pushes B's model and text to the controller
  QString shapeMismatch(const LoadedModel& b) const;  // empty when B may be compared with A

  LoadedModel m_modelA;
  std::shared_ptr<const Model> m_controllerModel;  // what m_controller computes with
  ModelStore* m_storeB = nullptr;
  AttentionController* m_controller = nullptr;
  QString m_textA;
  QString m_textB;
  AttentionFrame m_frame;
};

}  // namespace headmap::ui
