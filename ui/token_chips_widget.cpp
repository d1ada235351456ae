#include "ui/token_chips_widget.h"

#include <QHBoxLayout>
#include <QScrollArea>
#include <QToolButton>

#include "ui/heatmap_view.h"

namespace headmap::ui {
namespace {

// Checked chips (padding) are struck through and greyed; special tokens are italic.
const char* kChipStyle =
    "QToolButton { border: 1px solid palette(mid); border-radius: 8px; padding: 2px 7px;"
    " background: palette(base); color: palette(text); }"
    "QToolButton:checked { background: palette(mid); color: palette(window-text);"
    " text-decoration: line-through; }"
    "QToolButton:hover { border-color: palette(highlight); }";

}  // namespace

TokenChipsWidget::TokenChipsWidget(QWidget* parent) : QWidget(parent) {
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  m_scroll = new QScrollArea(this);
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  m_scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_row = new QWidget(m_scroll);
  m_layout = new QHBoxLayout(m_row);
  m_layout->setContentsMargins(2, 2, 2, 2);
  m_layout->setSpacing(4);
  m_layout->addStretch(1);
  m_scroll->setWidget(m_row);
  outer->addWidget(m_scroll);
  setMinimumHeight(fontMetrics().height() + 22);
  setMaximumHeight(fontMetrics().height() + 36);
  setToolTip(tr("Click a token to mark it as padding"));
}

void TokenChipsWidget::setTokens(const std::vector<Token>& tokens) {
  // Reuse existing chips: typing changes mostly the last token, so most widgets stay.
  while (m_chips.size() > tokens.size()) {
    delete m_chips.back();
    m_chips.pop_back();
  }
  while (m_chips.size() < tokens.size()) {
    auto* chip = new QToolButton(m_row);
    chip->setCheckable(true);
    chip->setStyleSheet(kChipStyle);
    chip->setFocusPolicy(Qt::NoFocus);
    chip->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);  // scroll rather than squeeze
    const int position = int(m_chips.size());
    connect(chip, &QToolButton::clicked, this, [this, position](bool checked) {
      if (checked)
        m_padded.insert(position);
      else
        m_padded.erase(position);
      emit paddingChanged();
    });
    m_layout->insertWidget(m_layout->count() - 1, chip);
    m_chips.push_back(chip);
  }
  m_padded.erase(m_padded.lower_bound(int(tokens.size())), m_padded.end());
  for (size_t i = 0; i < tokens.size(); ++i) {
    QToolButton* chip = m_chips[i];
    const QString display = QString::fromStdString(tokens[i].display);
    chip->setText(axisLabel(display, 24));
    chip->setToolTip(tr("#%1  id %2  piece \"%3\"%4")
                         .arg(i)
                         .arg(tokens[i].id)
                         .arg(QString::fromStdString(tokens[i].piece))
                         .arg(tokens[i].special ? tr("  (special)") : QString()));
    QFont font = chip->font();
    font.setItalic(tokens[i].special);
    chip->setFont(font);
    chip->setChecked(m_padded.count(int(i)) > 0);
  }
}

std::vector<int> TokenChipsWidget::paddedPositions() const {
  return std::vector<int>(m_padded.begin(), m_padded.end());
}

void TokenChipsWidget::setPadded(int position, bool padded) {
  if (position < 0 || position >= count()) return;
  m_chips[position]->setChecked(padded);
  if (padded)
    m_padded.insert(position);
  else
    m_padded.erase(position);
  emit paddingChanged();
}

}  // namespace headmap::ui
