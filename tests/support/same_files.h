#pragma once

// Two folders with the same files, byte for byte (the token stores of two runs).

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>

namespace attnlab::tests {

/// "" when folders `a` and `b` hold the same file names with the same bytes (subfolders are
/// not compared); else what differs first. `*files` counts the files compared.
inline QString folderDifference(const QString& a, const QString& b, int* files = nullptr) {
  const auto names = [](const QString& dir) {
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name);
  };
  const QStringList inA = names(a);
  const QStringList inB = names(b);
  if (files != nullptr) *files = 0;
  if (inA != inB) {
    return QStringLiteral("different files: %1 has [%2], %3 has [%4]")
        .arg(a, inA.join(' '), b, inB.join(' '));
  }
  for (const QString& name : inA) {
    QFile x(a + '/' + name);
    QFile y(b + '/' + name);
    if (!x.open(QIODevice::ReadOnly) || !y.open(QIODevice::ReadOnly))
      return QStringLiteral("%1: cannot be read").arg(name);
    if (x.readAll() != y.readAll()) return QStringLiteral("%1: the bytes differ").arg(name);
    if (files != nullptr) ++*files;
  }
  return {};
}

}  // namespace attnlab::tests
