#pragma once

// One place tells the person what happened: a result in the status bar for a while, an
// error in the console, the status bar and a (non-modal) message box. Every part of the
// window reports through it, so an export, a failed start and a failed open read alike.

#include <QObject>
#include <QString>

#include <functional>

class QMainWindow;

namespace attnlab::app {

class ConsoleDock;
class RunSession;
struct RunMessage;
enum class RunStatus;

class Notices : public QObject {
  Q_OBJECT
 public:
  /// How long the status bar keeps a result, and an error (also shown in a box).
  static constexpr int kResultMs = 10000;
  static constexpr int kErrorMs = 15000;

  Notices(QMainWindow* window, ConsoleDock* console);

  /// The last error shown to the person (tests assert its text).
  QString lastError() const { return m_lastError; }

  /// Every exporter (a tab, a figure tab, the plots' context menu) has exported(path) and
  /// exportFailed(error); its results are told here.
  template <class Exporter>
  void reportExportsOf(Exporter* source) {
    connect(source, &Exporter::exported, this, &Notices::exportSucceeded);
    connect(source, &Exporter::exportFailed, this, &Notices::exportFailed);
  }

 public slots:
  void error(const QString& text);
  void result(const QString& text, int ms = kResultMs);
  /// Progress that replaces the last message and stays until the next one.
  void progress(const QString& text);
  void exportSucceeded(const QString& path);
  void exportFailed(const QString& error);
  /// A line of the run trained here (console; an error also in the status bar).
  void runMessage(attnlab::app::RunSession* run, const attnlab::app::RunMessage& message);
  /// The run trained here ended: failed (an error), or stopped or finished (a result).
  void runEnded(attnlab::app::RunSession* run, attnlab::app::RunStatus status,
                const QString& error);

 public:
  /// The lines `run`'s log adds go to the console, unless `toldElsewhere()` (the run trained
  /// here reports through runMessage; the log's copy of the same events would print twice,
  /// also when it arrives after the training ended: RunSession::messagesShownUntil).
  void followMessages(RunSession* run, std::function<bool()> toldElsewhere);

 private:
  QMainWindow* m_window;
  ConsoleDock* m_console;
  QString m_lastError;
};

}  // namespace attnlab::app
