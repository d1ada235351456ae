#pragma once
// The tokens of the current text as a row of chips; clicking a chip marks it as padding.
#include <QWidget>
#include <set>
#include <vector>

#include "core/tokenize/tokenizer.h"

class QHBoxLayout;
class QLabel;
class QScrollArea;
class QToolButton;

namespace headmap::ui {

class TokenChipsWidget : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxChips = 512;  // chips beyond are summarised as "… N more tokens"
  explicit TokenChipsWidget(QWidget* parent = nullptr);
  // Marks at positions that still exist are kept, so retyping the end keeps earlier padding.
  void setTokens(const std::vector<Token>& tokens);
  std::vector<int> paddedPositions() const;
  void setPadded(int position, bool padded);         // as a click would (emits paddingChanged)
  int count() const { return int(m_chips.size()); }  // at most kMaxChips
  QToolButton* chip(int position) const { return m_chips.at(position); }

 signals:
  void paddingChanged();

 private:
  QScrollArea* m_scroll = nullptr;
  QWidget* m_row = nullptr;
  QHBoxLayout* m_layout = nullptr;
  QLabel* m_more = nullptr;
  std::vector<QToolButton*> m_chips;
  std::set<int> m_padded;
};

}  // namespace headmap::ui
