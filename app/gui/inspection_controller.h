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

/// What a request asks for beyond the probabilities (each costs time on a large model).
struct InspectionRequestOptions {
  bool scores = false;    ///< the pre-softmax scores
  bool asaMasks = false;  ///< ASA runs: the keep-masks (a second forward pass)
};

/// One inspection: probabilities and pre-softmax scores, per layer [H, T, T] row-major; ASA
/// keep-masks [L, T, T].
struct InspectionFrame {
  QString checkpoint;
  qint64 step = 0;
  QString text;
  QStringList pieces;  ///< <s> ... </s>, T of them
  int layers = 0, heads = 0, length = 0;
  bool truncated = false;       ///< the text was longer than the model takes
  int maxLength = 0;            ///< the longest input the model takes (<s> and </s> included)
  bool residualScores = false;  ///< RealFormer: the scores are the running residual ones
  bool hasAsa = false;          ///< the run uses ASA (keep-masks can be asked for)
  /// Engine time of the request (model load included when the checkpoint changed).
  double inspectMs = 0;
  /// Shared, not copied: a 12 x 12 inspection of 512 tokens is 150 MB a tensor, and the frame
  /// passes from the engine to the thread, the panel and its history. The pointers keep the
  /// model's own per-layer tensors alive: nothing is copied or stacked after the forward pass.
  std::vector<std::shared_ptr<const float>> probabilities;  ///< per layer [H, T, T]
  std::vector<std::shared_ptr<const float>> scores;         ///< per layer; empty when not captured
  std::shared_ptr<const float> asaMasks;  ///< [L, T, T]; null when not captured or not ASA
  /// The T x T matrix of (layer, head): probabilities, or the scores when `scores` is set.
  widgets::Matrix head(int layer, int head, bool scores = false) const;
  /// The first cell of (layer, head)'s T x T block (nullptr when out of range or absent).
  const float* headData(int layer, int head, bool scores = false) const;
  /// The first cell of every head, layer-major (for HeadGrid); empty when absent.
  std::vector<const float*> headPointers(bool scores = false) const;
  /// Layer `layer`'s T x T ASA keep-mask (1 = kept, 0 = masked); empty when not captured.
  widgets::Matrix asaMask(int layer) const;
};

class InspectionController : public QObject {
  Q_OBJECT
 public:
  explicit InspectionController(QObject* parent = nullptr);
  ~InspectionController() override;  ///< stops the thread after the pass in flight

  /// Inspects `text` under the checkpoint file `checkpoint`; inspected() or failed() follows.
  void inspect(const QString& checkpoint, const QString& text,
               const InspectionRequestOptions& options = {});

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
