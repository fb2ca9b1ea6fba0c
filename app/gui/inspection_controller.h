#pragma once

// Runs one text through a checkpoint's model and captures every layer's attention, as
// `attnlab-cli inspect` does, on a thread of its own (the inspector for the last
// checkpoint is kept, so moving along checkpoints or editing the text costs one forward
// pass). Requests coalesce: while one runs, only the newest waiting one is kept. A QObject
// without widgets; results arrive as plain floats, so views need no LibTorch.

#include "widgets/plots/plot_data.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace attnlab::app {

/// One inspection: probabilities and pre-softmax scores, [L, H, T, T] row-major.
struct InspectionFrame {
  QString checkpoint;
  qint64 step = 0;
  QString text;
  QStringList pieces;  ///< <s> ... </s>, T of them
  int layers = 0, heads = 0, length = 0;
  bool truncated = false;       ///< the text was longer than the model takes
  int maxLength = 0;            ///< the longest input the model takes (<s> and </s> included)
  bool residualScores = false;  ///< RealFormer: the scores are the running residual ones
  /// Shared, not copied: a 12 x 12 inspection of 512 tokens is 150 MB a tensor, and the frame
  /// passes from the thread to the panel and into its history.
  std::shared_ptr<const std::vector<float>> probabilities;
  std::shared_ptr<const std::vector<float>> scores;  ///< null when not captured
  /// The T x T matrix of (layer, head): probabilities, or the scores when `scores` is set.
  widgets::Matrix head(int layer, int head, bool scores = false) const;
};

class InspectionController : public QObject {
  Q_OBJECT
 public:
  explicit InspectionController(QObject* parent = nullptr);
  ~InspectionController() override;  ///< stops the thread after the pass in flight

  /// Inspects `text` under the checkpoint file `checkpoint`; inspected() or failed() follows.
  void inspect(const QString& checkpoint, const QString& text);

 signals:
  void inspected(const attnlab::app::InspectionFrame& frame);
  /// What went wrong and where (a missing or foreign checkpoint, an empty text).
  void failed(const QString& message);

 private:
  struct Worker;
  std::unique_ptr<Worker> m_worker;
};

}  // namespace attnlab::app

Q_DECLARE_METATYPE(attnlab::app::InspectionFrame)
