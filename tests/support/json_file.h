#pragma once

// A JSON report file (analysis.json, health.json, ...) read as its top-level object: empty when
// the file cannot be read or is not a JSON object, which the caller's comparisons then show.

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace attnlab::tests {

inline QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace attnlab::tests
