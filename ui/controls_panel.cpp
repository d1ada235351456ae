#include "ui/controls_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>

namespace headmap::ui {

ControlsPanel::ControlsPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(6, 6, 6, 6);
  m_layer = new QSpinBox(this);
  m_layer->setToolTip(tr("Layer (PageUp / PageDown)"));
  m_mode = new QComboBox(this);
  m_mode->addItems({tr("One head"), tr("All heads (grid)"), tr("Mean over heads"),
                    tr("Rollout across layers"), tr("Whole model (layers × heads)")});
  m_head = new QSpinBox(this);
  m_head->setToolTip(tr("Head (← / →)"));
  m_head->setWrapping(true);
  m_causal = new QCheckBox(tr("Causal mask"), this);
  m_padding = new QCheckBox(tr("Mask padding chips"), this);
  m_padding->setChecked(true);
  m_scale = new QCheckBox(tr("Scale by √d_k"), this);
  m_scale->setChecked(true);
  m_scale->setToolTip(tr("Switch off to see the softmax saturate on unscaled scores"));
  m_stage = new QComboBox(this);
  m_stage->addItems(
      {tr("Raw scores QKᵀ"), tr("Scaled scores"), tr("Masked scores"), tr("Softmax weights")});
  m_stage->setCurrentIndex(3);
  m_colormap = new QComboBox(this);
  m_colormap->addItems(colormapNames());
  m_range = new QComboBox(this);
  m_range->addItems({tr("Fixed 0 … 1"), tr("Automatic")});
  form->addRow(tr("Layer"), m_layer);
  form->addRow(tr("Heads"), m_mode);
  form->addRow(tr("Head"), m_head);
  form->addRow(m_causal);
  form->addRow(m_padding);
  form->addRow(m_scale);
  form->addRow(tr("Stage"), m_stage);
  form->addRow(tr("Colormap"), m_colormap);
  form->addRow(tr("Range"), m_range);
  auto changed = [this] {
    updateEnabled();
    if (!m_quiet) emit optionsChanged();
  };
  for (QSpinBox* box : {m_layer, m_head})
    connect(box, qOverload<int>(&QSpinBox::valueChanged), this, changed);
  for (QComboBox* box : {m_mode, m_stage, m_colormap, m_range})
    connect(box, qOverload<int>(&QComboBox::currentIndexChanged), this, changed);
  for (QCheckBox* box : {m_causal, m_padding, m_scale})
    connect(box, &QCheckBox::toggled, this, changed);
  setModelShape(1, 1, false);
}

void ControlsPanel::setModelShape(int layers, int heads, bool causalBuiltIn) {
  m_quiet = true;
  m_layer->setRange(0, std::max(0, layers - 1));
  m_head->setRange(0, std::max(0, heads - 1));
  m_causalBuiltIn = causalBuiltIn;
  if (causalBuiltIn) m_causal->setChecked(true);
  m_quiet = false;
  updateEnabled();
}

void ControlsPanel::updateEnabled() {
  m_layer->setEnabled(m_layer->maximum() > 0);
  m_head->setEnabled(m_mode->currentIndex() == int(HeadMode::Single));
  m_causal->setEnabled(!m_causalBuiltIn);
  m_causal->setToolTip(m_causalBuiltIn ? tr("This model is causal: the mask is built in") : "");
  m_range->setEnabled(m_stage->currentIndex() == int(ScoreStage::Softmax));
}

ViewOptions ControlsPanel::options() const {
  ViewOptions o;
  o.layer = m_layer->value();
  o.mode = static_cast<HeadMode>(m_mode->currentIndex());
  o.head = m_head->value();
  o.causal = m_causal->isChecked();
  o.padding = m_padding->isChecked();
  o.scale = m_scale->isChecked();
  o.stage = static_cast<ScoreStage>(m_stage->currentIndex());
  o.colormap = static_cast<Colormap>(m_colormap->currentIndex());
  o.fixedRange = m_range->currentIndex() == 0;
  return o;
}

void ControlsPanel::setOptions(const ViewOptions& o) {
  m_quiet = true;
  m_layer->setValue(o.layer);
  m_mode->setCurrentIndex(int(o.mode));
  m_head->setValue(o.head);
  m_causal->setChecked(o.causal || m_causalBuiltIn);
  m_padding->setChecked(o.padding);
  m_scale->setChecked(o.scale);
  m_stage->setCurrentIndex(int(o.stage));
  m_colormap->setCurrentIndex(int(o.colormap));
  m_range->setCurrentIndex(o.fixedRange ? 0 : 1);
  m_quiet = false;
  updateEnabled();
  emit optionsChanged();
}

void ControlsPanel::stepHead(int delta) {
  if (m_mode->currentIndex() != int(HeadMode::Single)) {
    m_mode->setCurrentIndex(int(HeadMode::Single));
    return;
  }
  const int n = m_head->maximum() + 1;
  m_head->setValue(((m_head->value() + delta) % n + n) % n);
}

void ControlsPanel::stepLayer(int delta) {
  m_layer->setValue(std::clamp(m_layer->value() + delta, 0, m_layer->maximum()));
}

}  // namespace headmap::ui
