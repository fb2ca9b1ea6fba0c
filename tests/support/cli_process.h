#pragma once

// Runs a program (attnlab-cli, python3, h5dump) as a user would: a separate process, its
// exit status, stdout and stderr. Shared by the app tests.

#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace attnlab::tests {

inline const QString kCli = QStringLiteral(ATTNLAB_BINARY_DIR "/bin/attnlab-cli");
inline const QString kPython = QStringLiteral(ATTNLAB_PYTHON);

struct ProcessResult {
  int exitCode = -1;  ///< -1 when it crashed or timed out
  QString out;
  QString err;
};

inline ProcessResult runProcess(const QString& program, const QStringList& args,
                                int timeoutMs = 300000) {
  QProcess p;
  p.start(program, args);
  ProcessResult r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = QStringLiteral("timed out");
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

inline ProcessResult runCli(const QStringList& args, int timeoutMs = 300000) {
  return runProcess(kCli, args, timeoutMs);
}

/// Writes `bytes` to `path`; false when it cannot.
inline bool writeBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

}  // namespace attnlab::tests
