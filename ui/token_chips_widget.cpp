#include "ui/token_chips_widget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolButton>
#include <algorithm>

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
  // Once for the row (its QToolButton children inherit it), not per chip: parsing a style
  // sheet for each of 4,096 chips took seconds.
  m_row->setStyleSheet(kChipStyle);
  m_layout = new QHBoxLayout(m_row);
  m_layout->setContentsMargins(2, 2, 2, 2);
  m_layout->setSpacing(4);
  m_more = new QLabel(m_row);
  m_more->hide();
  m_layout->addWidget(m_more);
  m_layout->addStretch(1);
  m_scroll->setWidget(m_row);
  outer->addWidget(m_scroll);
  setMinimumHeight(fontMetrics().height() + 22);
  setMaximumHeight(fontMetrics().height() + 36);
  setToolTip(tr("Click a token to mark it as padding"));
}

void TokenChipsWidget::setTokens(const std::vector<Token>& all) {
  // A chip is a widget: thousands of them cost seconds of layout per frame. Long inputs get
  // chips for their first kMaxChips tokens and a count of the rest.
  const std::vector<Token> tokens(all.begin(),
                                  all.begin() + std::min(all.size(), size_t(kMaxChips)));
  // One layout pass at the end instead of one per chip change (4,096 chips: seconds).
  m_layout->setEnabled(false);
  m_row->setUpdatesEnabled(false);
  // Reuse existing chips: typing changes mostly the last token, so most widgets stay.
  while (m_chips.size() > tokens.size()) {
    m_layout->removeWidget(m_chips.back());  // a disabled layout misses the deletion
    delete m_chips.back();
    m_chips.pop_back();
  }
  while (m_chips.size() < tokens.size()) {
    auto* chip = new QToolButton(m_row);
    chip->setCheckable(true);
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
    m_layout->insertWidget(m_layout->count() - 2, chip);  // before the count and the stretch
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
  const int rest = int(all.size() - tokens.size());
  m_more->setText(tr("… %n more tokens", nullptr, rest));
  m_more->setVisible(rest > 0);
  m_layout->setEnabled(true);
  m_layout->activate();
  m_row->setUpdatesEnabled(true);
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
