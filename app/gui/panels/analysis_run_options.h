#pragma once

// The choices of an analysis run that the Analysis tab offers next to Run analysis: the
// evaluation set (the run's validation split, all or its first N blocks, or a text file of
// one sequence a line), the sequences of the all-pairs head JSD and whether to analyse every
// checkpoint too, and the heads' analysis. They are `attnlab-cli analyze`'s options (--examples,
// --text, --pairwise, --over-checkpoints, --heads), named the same, so a run from the tab and one
// from the CLI agree.

#include "app/gui/analysis_controller.h"

#include <QString>
#include <QStringList>
#include <QToolButton>

class QCheckBox;
class QFormLayout;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace attnlab::app {

/// The controller's job options (one struct: the Options... button fills what the job
/// runs), with what the button says about them.
struct AnalysisRunOptions : AnalysisJobOptions {
  /// What is wrong with the options (a text file that does not exist or cannot be read,
  /// naming it); empty when they can run.
  QString problem() const;
  /// The same choices as `attnlab-cli analyze` options (only those that differ from its
  /// defaults), e.g. {"--examples", "200", "--text", "/data/wiki.txt"}.
  QStringList cliArguments() const;
  /// One line for tooltips and the status: "validation split, first 200 blocks; pairwise JSD
  /// over 64 sequences".
  QString describe() const;
};

/// "Options..." beside Run analysis: a popup form over AnalysisRunOptions.
class AnalysisRunOptionsButton : public QToolButton {
  Q_OBJECT
 public:
  explicit AnalysisRunOptionsButton(QWidget* parent = nullptr);

  AnalysisRunOptions options() const;
  void setOptions(const AnalysisRunOptions& options);

  // The form's fields (tests drive them without opening the popup).
  QRadioButton* validationChoice() const { return m_validation; }
  QRadioButton* textChoice() const { return m_text; }
  QSpinBox* blocksField() const { return m_blocks; }
  QLineEdit* textFileField() const { return m_textFile; }
  QSpinBox* pairwiseField() const { return m_pairwise; }
  QCheckBox* overCheckpointsField() const { return m_overCheckpoints; }
  QCheckBox* headsField() const { return m_heads; }

 signals:
  void optionsChanged();

 private:
  void chooseTextFile();
  /// "also under every checkpoint" and "heads", below the fields.
  void addChecks(QFormLayout* layout, QWidget* form);
  void update();

  QRadioButton* m_validation = nullptr;
  QRadioButton* m_text = nullptr;
  QSpinBox* m_blocks = nullptr;
  QLineEdit* m_textFile = nullptr;
  QSpinBox* m_pairwise = nullptr;
  QCheckBox* m_overCheckpoints = nullptr;
  QCheckBox* m_heads = nullptr;
};

}  // namespace attnlab::app
