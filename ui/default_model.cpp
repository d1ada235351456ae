#include "ui/default_model.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QSaveFile>
#include <QStandardPaths>

namespace headmap::ui {

QString extractDefaultModel(QString* error) {
  const QString source = QStringLiteral(":/default_model");
  if (!QFileInfo::exists(source + "/config.json")) {
    if (error) *error = QObject::tr("this build embeds no default model");
    return {};
  }
  const QString target =
      QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/default_model";
  if (!QDir().mkpath(target)) {
    if (error) *error = QObject::tr("cannot create %1").arg(target);
    return {};
  }
  QDirIterator it(source, QDir::Files);
  while (it.hasNext()) {
    const QString from = it.next();
    const QString to = target + '/' + it.fileName();
    QFile in(from);
    if (!in.open(QIODevice::ReadOnly)) continue;
    const QByteArray bytes = in.readAll();
    QFile existing(to);
    if (existing.open(QIODevice::ReadOnly) && existing.size() == bytes.size() &&
        existing.readAll() == bytes)
      continue;  // already up to date
    existing.close();
    QSaveFile out(to);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
      if (error) *error = QObject::tr("cannot write %1: %2").arg(to, out.errorString());
      return {};
    }
  }
  return target;
}

}  // namespace headmap::ui
