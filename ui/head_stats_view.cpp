#include "ui/head_stats_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "core/analysis/stats_table.h"
#include "core/common/atomic_file.h"

namespace headmap::ui {

void HeadStatsModel::setStats(std::vector<HeadStats> stats) {
  if (stats.size() == m_stats.size() && !stats.empty()) {
    m_stats = std::move(stats);
    emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    return;
  }
  beginResetModel();
  m_stats = std::move(stats);
  endResetModel();
}

int HeadStatsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_stats.size());
}

int HeadStatsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(statsColumnNames().size());
}

QVariant HeadStatsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const std::optional<double> value = statsValue(m_stats[index.row()], index.column());
  switch (role) {
    case Qt::UserRole:
      return value ? QVariant(*value) : QVariant();
    case Qt::DisplayRole:
      if (!value) return QString();
      return index.column() < 2 ? QString::number(int(*value)) : QString::number(*value, 'f', 3);
    case Qt::TextAlignmentRole:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
  }
}

QVariant HeadStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
  const std::string& name = statsColumnNames()[section];
  if (role == Qt::DisplayRole) return QString::fromStdString(name).replace('_', ' ');
  if (role == Qt::ToolTipRole) {
    static const QStringList tips{
        tr("Model layer"),
        tr("Head within the layer"),
        tr("Mean row entropy in nats (low = focused)"),
        tr("Mean over queries of Σ w·|q − k|, in positions"),
        tr("Mean weight on the first token (attention sink)"),
        tr("Mean weight on the previous token"),
        tr("Mean weight on the query's own token"),
        tr("Mean weight on the token after the earlier occurrence of the query's token; "
           "blank when no token repeats")};
    return tips.value(section);
  }
  return {};
}

bool HeadStatsProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant a = left.data(Qt::UserRole), b = right.data(Qt::UserRole);
  if (!a.isValid() || !b.isValid()) return a.isValid() && !b.isValid();
  return a.toDouble() < b.toDouble();
}

HeadStatsView::HeadStatsView(QWidget* parent) : QWidget(parent) {
  m_model = new HeadStatsModel(this);
  m_proxy = new HeadStatsProxy(this);
  m_proxy->setSourceModel(m_model);
  m_table = new QTableView(this);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(-1, Qt::AscendingOrder);  // model order (layer, head) until clicked
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  m_note->hide();
  m_export = new QPushButton(tr("Export CSV…"), this);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_note, 1);
  buttons->addStretch();
  buttons->addWidget(m_export);
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  column->addWidget(m_table, 1);
  column->addLayout(buttons);
  // Only the user picks a head here: moving from one row to another (mouse, arrow keys) or
  // clicking a row. Qt also makes the first row current on its own when the table gains focus
  // after a model reset (every new frame); that must not switch the window to that head.
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current, const QModelIndex& previous) {
            if (previous.isValid()) onCurrentChanged(current);
          });
  connect(m_table, &QTableView::clicked, this,
          [this](const QModelIndex& index) { onCurrentChanged(index); });
  connect(m_export, &QPushButton::clicked, this, &HeadStatsView::exportRequested);
}

void HeadStatsView::setStats(std::vector<HeadStats> stats, const QString& note) {
  m_model->setStats(std::move(stats));
  m_note->setText(note);
  m_note->setVisible(!note.isEmpty());
  m_export->setEnabled(m_model->rowCount() > 0);
}

void HeadStatsView::exportCsvTo(const QString& path) const {
  const std::vector<HeadStats>& stats = m_model->stats();
  writeFileAtomic(path.toStdString(), [&](std::ostream& out) { writeStatsCsv(out, stats); });
}

void HeadStatsView::showHead(int layer, int head) {
  const std::vector<HeadStats>& stats = m_model->stats();
  for (size_t r = 0; r < stats.size(); ++r) {
    if (stats[r].layer != layer || stats[r].head != head) continue;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(int(r), 0));
    if (index.row() == m_table->currentIndex().row()) return;
    m_syncing = true;
    m_table->selectRow(index.row());
    m_syncing = false;
    return;
  }
}

void HeadStatsView::onCurrentChanged(const QModelIndex& current) {
  if (m_syncing) return;
  const QModelIndex source = m_proxy->mapToSource(current);
  if (!source.isValid()) return;
  const HeadStats& s = m_model->stats()[source.row()];
  emit headSelected(s.layer, s.head);
}

}  // namespace headmap::ui
