#include "app/gui/panels/run_reports.h"

#include <QDir>
#include <QFileInfo>
#include <QList>
#include <QPair>

#include <algorithm>

namespace attnlab::app {

QStringList runReports(const QString& runDirectory, const QString& folderPrefix,
                       const QString& fileName) {
  QList<QPair<qint64, QString>> found;
  const QDir root(QDir(runDirectory).filePath(QStringLiteral("analysis")));
  for (const QString& folder : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    const QString file = root.filePath(folder + QLatin1Char('/') + fileName);
    if (!QFileInfo::exists(file)) continue;
    bool ok = false;
    const qint64 step =
        folder.startsWith(folderPrefix) ? folder.mid(folderPrefix.size()).toLongLong(&ok) : -1;
    found.append({ok ? step : -1, file});
  }
  std::sort(found.begin(), found.end());
  QStringList files;
  for (const auto& f : found) files << f.second;
  return files;
}

}  // namespace attnlab::app
