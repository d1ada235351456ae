#pragma once
// Holds the current model. A load that fails reports the loader's message and keeps the
// previous model loaded and working.
#include <QObject>
#include <QString>
#include <functional>

#include "core/model/load.h"

namespace headmap::ui {

class ModelStore : public QObject {
  Q_OBJECT
 public:
  explicit ModelStore(QObject* parent = nullptr) : QObject(parent) {}

  const LoadedModel& current() const { return m_model; }
  bool hasModel() const { return m_model.model != nullptr; }
  QString displayName() const;  // the model's name, or "no model"
  ModelInfo info() const;

  void setModel(LoadedModel model);                                 // emits modelChanged
  bool load(const QString& path, const LoadOptions& options = {});  // false: loadFailed emitted
  bool loadRandom(int dModel, int heads, unsigned seed);
  // Checked after a load succeeds and before the model replaces the current one: a non-empty
  // message refuses the model (loadFailed), e.g. a compare model of another shape.
  using Validator = std::function<QString(const LoadedModel&)>;
  void setValidator(Validator validator) { m_validator = std::move(validator); }
  void clear();  // no model; emits modelChanged
  QString lastError() const { return m_lastError; }

 signals:
  void modelChanged();
  void loadStarted(const QString& path);
  void loadFailed(const QString& message);

 private:
  bool fail(const QString& message);

  LoadedModel m_model;
  QString m_lastError;
  Validator m_validator;
  bool m_loading = false;
};

}  // namespace headmap::ui
