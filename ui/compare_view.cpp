#include "ui/compare_view.h"

#include <QGridLayout>
#include <QLabel>

namespace headmap::ui {

std::optional<HeatmapData> differenceData(const HeatmapData& a, const HeatmapData& b,
                                          QString* why) {
  if (a.q != b.q || a.k != b.k) {
    if (why)
      *why = QObject::tr("The difference needs inputs of equal length: A has %1 tokens, B has %2")
                 .arg(a.q)
                 .arg(b.q);
    return std::nullopt;
  }
  HeatmapData d;
  d.q = a.q;
  d.k = a.k;
  d.values.resize(a.values.size());
  for (size_t i = 0; i < d.values.size(); ++i) d.values[i] = a.values[i] - b.values[i];
  // A cell masked on either side has no difference.
  if (!a.mask.empty() || !b.mask.empty()) {
    d.mask.assign(d.values.size(), 0);
    for (size_t i = 0; i < d.mask.size(); ++i)
      d.mask[i] = (!a.mask.empty() && a.mask[i]) || (!b.mask.empty() && b.mask[i]);
  }
  auto mark = [](const QStringList& x, const QStringList& y) {
    QStringList out;
    for (int i = 0; i < x.size(); ++i)
      out << (x[i] == y.value(i) ? x[i]
                                 : x[i].trimmed() + QStringLiteral(" | ") + y.value(i).trimmed());
    return out;
  };
  d.queryLabels = mark(a.queryLabels, b.queryLabels);
  d.keyLabels = mark(a.keyLabels, b.keyLabels);
  d.valueName = QObject::tr("A − B");
  d.fixedUnitRange = false;
  d.diverging = true;
  d.title = QObject::tr("A − B (differing tokens: \"a | b\")");
  return d;
}

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  m_a = new HeatmapView(HeatmapView::Style::Full, this);
  m_b = new HeatmapView(HeatmapView::Style::Full, this);
  m_diff = new HeatmapView(HeatmapView::Style::Full, this);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->hide();
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(m_a, 0, 0);
  grid->addWidget(m_b, 0, 1);
  grid->addWidget(m_diff, 1, 0, 1, 2);
  grid->addWidget(m_message, 1, 0, 1, 2);
  grid->setRowStretch(0, 1);
  grid->setRowStretch(1, 1);
}

void CompareView::setMaps(HeatmapData a, HeatmapData b) {
  QString why;
  const std::optional<HeatmapData> diff = differenceData(a, b, &why);
  a.title = QStringLiteral("A · ") + a.title;
  b.title = QStringLiteral("B · ") + b.title;
  m_a->setData(std::move(a));
  m_b->setData(std::move(b));
  m_diff->setVisible(diff.has_value());
  m_message->setVisible(!diff);
  m_message->setText(why);
  if (diff) m_diff->setData(*diff);
}

void CompareView::setColormap(Colormap map) {
  m_a->setColormap(map);
  m_b->setColormap(map);
  m_diff->setColormap(map);  // ignored while it shows a difference (always diverging)
}

QString CompareView::message() const {
  return m_message->isHidden() ? QString() : m_message->text();
}

}  // namespace headmap::ui
