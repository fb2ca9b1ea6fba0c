#pragma once

// Runs one text through a checkpoint's model and captures every layer's attention, as
// `attnlab-cli inspect` does, one pass at a time as a job on a JobRunner of its own. The
// models come from a ModelCache (by default this controller's own; the window shares one
// with the query-key maps), so editing the text costs one forward pass, not a model load;
// the frames already made are kept too (InspectionCache): asking again for a text under a
// checkpoint it has seen answers at once. prefetch() inspects the same text under other
// checkpoints while no request waits, so moving the checkpoint slider repaints without
// waiting for a model. Requests coalesce: while one runs, only the newest waiting one is
// kept, and only the newest request's answer is emitted. A QObject without widgets; results
// arrive as plain floats (inspection_frame.h), so views need no LibTorch.

#include "app/gui/inspection_frame.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>

namespace attnlab::app {

class InspectionCache;
class JobRunner;
class ModelCache;

class InspectionController : public QObject {
  Q_OBJECT
 public:
  explicit InspectionController(QObject* parent = nullptr);
  ~InspectionController() override;  ///< waits for the pass in flight

  /// Inspects `text` under the checkpoint file `checkpoint`; inspected() or failed() follows
  /// (at once, on the next turn of the event loop, when the frame is kept in memory). A newer
  /// request supersedes this one: its answer is then kept in memory but not emitted.
  void inspect(const QString& checkpoint, const QString& text,
               const InspectionRequestOptions& options = {});
  /// Inspects `text` under each of `checkpoints`, in order, whenever no request waits, and
  /// keeps the frames (prefetched() follows each). Replaces the list of an earlier call; an
  /// empty list stops prefetching after the pass in flight.
  void prefetch(const QStringList& checkpoints, const QString& text,
                const InspectionRequestOptions& options = {});
  /// True when a request for `text` under `checkpoint` would be answered from memory.
  bool isCached(const QString& checkpoint, const QString& text,
                const InspectionRequestOptions& options = {}) const;
  /// The memory the kept frames may take (default 1 GiB: six 512-token inspections of a
  /// 12 x 12 model); 0 keeps none, so every request runs the model.
  void setCacheBudget(std::size_t bytes);
  /// The default budget of setCacheBudget().
  static constexpr std::size_t kDefaultCacheBytes = std::size_t{1} << 30;
  /// Where the passes borrow their models (from the next pass on).
  void setModels(std::shared_ptr<ModelCache> models);
  const std::shared_ptr<ModelCache>& models() const { return m_models; }

 signals:
  void inspected(const attnlab::app::InspectionFrame& frame);
  /// A prefetch() pass is kept in memory.
  void prefetched(const QString& checkpoint, const QString& text);
  /// What went wrong and where (a missing or foreign checkpoint, an empty text).
  void failed(const QString& message);

 private:
  struct Request {
    QString checkpoint, text;
    InspectionRequestOptions options;
    quint64 serial = 0;         ///< the GUI's request number; 0 for a prefetch pass
    bool weightsFirst = false;  ///< this pass makes the weights alone (extrasPending)
  };
  void pump();
  void startPass(const Request& request);
  void passEnded(const Request& request, bool ok, const InspectionFrame* frame,
                 const QString& error);

  std::shared_ptr<InspectionCache> m_cache;  ///< shared with the passes' threads
  std::shared_ptr<ModelCache> m_models;
  std::optional<Request> m_pending;     ///< the newest request not yet begun
  std::deque<Request> m_prefetches;     ///< done, in order, whenever nothing is pending
  quint64 m_serial = 0;                 ///< the newest request's number
  std::unique_ptr<JobRunner> m_runner;  ///< last: joined before the members above go
};

}  // namespace attnlab::app
