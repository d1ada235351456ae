#pragma once
// Layer/head selectors, mask and scale toggles, stage, colormap and colour range.
#include <QWidget>

#include "ui/view_options.h"

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace headmap::ui {

class ControlsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ControlsPanel(QWidget* parent = nullptr);
  // Bounds the selectors; a causal model (GPT-2, Llama) forces the causal toggle on.
  void setModelShape(int layers, int heads, bool causalBuiltIn);
  ViewOptions options() const;
  void setOptions(const ViewOptions& options);  // clamps to the model's shape; emits once
  void stepHead(int delta);   // arrow keys: next/previous head (wraps within the layer)
  void stepLayer(int delta);  // PageUp/PageDown

  QCheckBox* causalBox() const { return m_causal; }
  QCheckBox* paddingBox() const { return m_padding; }
  QCheckBox* scaleBox() const { return m_scale; }

 signals:
  void optionsChanged();

 private:
  void updateEnabled();

  QSpinBox* m_layer = nullptr;
  QComboBox* m_mode = nullptr;
  QSpinBox* m_head = nullptr;
  QCheckBox* m_causal = nullptr;
  QCheckBox* m_padding = nullptr;
  QCheckBox* m_scale = nullptr;
  QComboBox* m_stage = nullptr;
  QComboBox* m_colormap = nullptr;
  QComboBox* m_range = nullptr;
  bool m_causalBuiltIn = false;
  bool m_quiet = false;
};

}  // namespace headmap::ui
