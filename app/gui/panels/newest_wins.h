#pragma once

// Reads that may overlap, of which only the newest may land. A person picks a report, then
// another before the first (megabytes of JSON) is read; or selects other runs while the
// Compare table is still being summarised. Each request takes a ticket; work runs on the
// thread pool, never on the GUI thread, and its answer reaches the GUI thread only while its
// ticket is still the newest and its owner still exists. The Analysis, Probe and Compare
// tabs share this rule instead of a counter each.

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>

#include <cstdint>
#include <exception>
#include <memory>
#include <utility>

namespace attnlab::app {

class NewestWins {
 public:
  using Ticket = std::uint64_t;

  /// A new request: the answers of every earlier ticket will be dropped.
  Ticket next() { return ++m_newest; }
  /// Whether no request was made since `ticket`'s.
  bool isNewest(Ticket ticket) const { return ticket == m_newest; }
  /// Drops the answers of every request in flight (the selection they were for is gone).
  void dropAll() { ++m_newest; }

  /// A new request (next()) whose work is `work()`: see runFor.
  template <typename Result, typename Work, typename Done>
  Ticket run(QObject* owner, Work work, Done done) {
    const Ticket ticket = next();
    runFor<Result>(ticket, owner, std::move(work), std::move(done));
    return ticket;
  }

  /// More work for `ticket` (a report's companion file, read once the report is shown):
  /// `work()` returns a Result on the thread pool, or throws; then `done(result, error)` runs
  /// on the GUI thread, `result` null and `error` the exception's message when it threw,
  /// unless `owner` is gone or a newer request was made meanwhile. This object must be a
  /// member of `owner` (it is read through `owner`'s lifetime guard).
  template <typename Result, typename Work, typename Done>
  void runFor(Ticket ticket, QObject* owner, Work work, Done done) {
    QPointer<QObject> alive(owner);
    QThreadPool::globalInstance()->start([this, alive, ticket, work, done] {
      std::shared_ptr<Result> result;
      QString error;
      try {
        result = std::make_shared<Result>(work());
      } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
      }
      QMetaObject::invokeMethod(
          qApp,
          [this, alive, ticket, done, result, error] {
            if (alive && isNewest(ticket)) done(result, error);
          },
          Qt::QueuedConnection);
    });
  }

 private:
  Ticket m_newest = 0;  // touched on the GUI thread only
};

/// Reads the report file `path` with `read(path)` (analysis::readAnalysisJson, readCorefJson,
/// ...) off the GUI thread as a new request of `loads`: `done(report, error)` as runFor says.
template <typename Report, typename Read, typename Done>
NewestWins::Ticket loadReport(NewestWins& loads, QObject* owner, const QString& path, Read read,
                              Done done) {
  return loads.run<Report>(
      owner, [path, read] { return read(path.toStdString()); }, std::move(done));
}

/// The same for more files of the request `ticket` (the report's companions).
template <typename Report, typename Read, typename Done>
void loadReportFor(NewestWins& loads, NewestWins::Ticket ticket, QObject* owner,
                   const QString& path, Read read, Done done) {
  loads.runFor<Report>(
      ticket, owner, [path, read] { return read(path.toStdString()); }, std::move(done));
}

}  // namespace attnlab::app
