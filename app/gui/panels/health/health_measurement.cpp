#include "app/gui/panels/health/health_measurement.h"

#include "analysis/report/report_layout.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/jobs/job_runner.h"
#include "app/gui/panels/probe_sentences.h"
#include "app/gui/run_session.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>

namespace attnlab::app {

namespace {

constexpr int kProbeSentenceCount = 20;

enum Source { ProbeSentences, ValidationSplit, TextFile };

std::vector<float> floats(const std::vector<double>& values) {
  return std::vector<float>(values.begin(), values.end());
}

/// The report's massive entries ([L][3]) as the log's three [L * 3] rows.
void fillMassive(const analysis::HealthReport& r, core::HealthHistory& h) {
  std::vector<float> value, token, dimension;
  for (const auto& layer : r.massive)
    for (const auto& e : layer) {
      value.push_back(static_cast<float>(e.value));
      token.push_back(static_cast<float>(e.sequence * r.longestSequence + e.position));
      dimension.push_back(static_cast<float>(e.dimension));
    }
  h.massiveValue = {value};
  h.massiveToken = {token};
  h.massiveDimension = {dimension};
}

}  // namespace

core::HealthHistory historyOfReport(const analysis::HealthReport& r) {
  core::HealthHistory h;
  h.steps = {r.source.step};
  h.layers = r.layers;
  h.heads = r.heads;
  h.classes = static_cast<std::int64_t>(r.classes.size());
  h.classMass = {floats(r.classMass)};
  h.sinkRate = {floats(r.sinkRate)};
  h.sinkRateByLayer = {floats(r.sinkRateByLayer)};
  std::vector<double> topClass(r.topKeyClass.begin(), r.topKeyClass.end());
  const std::vector<std::pair<const char*, const std::vector<double>*>> perHead = {
      {"top_key_mass", &r.topKeyMass},        {"top_key_class", &topClass},
      {"entropy_mean", &r.entropyMean},       {"entropy_min", &r.entropyMin},
      {"collapsed_share", &r.collapsedShare}, {"logit_max", &r.logitMax},
      {"spectral_norm", &r.spectralNorm}};
  for (const auto& [name, values] : perHead) h.perHead.push_back({name, {floats(*values)}});
  if (!r.rotarySpectralNorm.empty())
    h.perHead.push_back({"spectral_norm_rotary", {floats(r.rotarySpectralNorm)}});
  fillMassive(r, h);
  h.medianAbs = {floats(r.medianAbs)};
  h.massiveRatio = {floats(r.massiveRatio)};
  h.rankResidual = {floats(r.rankResidual)};
  h.meanCosine = {floats(r.meanCosine)};
  return h;
}

HealthMeasureBar::HealthMeasureBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("healthMeasureBar"));
  m_runner = new JobRunner(this);
  m_bar = new JobBar(QStringLiteral("Measure health"), QStringLiteral("healthMeasure"), this);
  m_bar->setRunner(m_runner);
  m_bar->runButton()->setToolTip(
      QStringLiteral("Measure the attention health of the newest checkpoint on the chosen text, as "
                     "attnlab-cli health does, and write the report where it writes it"));
  m_source = new QComboBox(this);
  m_source->setObjectName(QStringLiteral("healthMeasureSource"));
  m_note = new QLabel(this);
  m_note->setObjectName(QStringLiteral("healthMeasureNote"));
  m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(QStringLiteral("on"), this);
  label->setBuddy(m_source);
  row->addWidget(m_bar);
  row->addWidget(label);
  row->addWidget(m_source);
  row->addWidget(m_note, 1);
  connect(m_bar, &JobBar::runClicked, this, [this] { measure(); });
  connect(m_source, qOverload<int>(&QComboBox::activated), this, [this](int) {
    m_chosenSource = m_source->currentData().toInt();  // kept from run to run where offered
    if (m_chosenSource == TextFile && m_textFile.isEmpty()) chooseTextFile();
  });
  fillSources();
}

HealthMeasureBar::~HealthMeasureBar() = default;

void HealthMeasureBar::fillSources() {
  const int kept = m_chosenSource;
  m_source->clear();
  m_source->addItem(QStringLiteral("probe sentences (%1)").arg(kProbeSentenceCount),
                    ProbeSentences);
  const bool run = m_run != nullptr && m_run->status() != RunStatus::Pretrained;
  if (run) m_source->addItem(QStringLiteral("the run's validation split"), ValidationSplit);
  m_source->addItem(m_textFile.isEmpty()
                        ? QStringLiteral("a text file…")
                        : QStringLiteral("text file %1").arg(QFileInfo(m_textFile).fileName()),
                    TextFile);
  int index = m_source->findData(kept);
  if (index < 0) index = m_source->findData(run ? ValidationSplit : ProbeSentences);
  m_source->setCurrentIndex(std::max(0, index));
  m_source->setToolTip(
      QStringLiteral(
          "What the model reads: the first %1 sentences of the synthetic reflexive data, the run's "
          "validation split, or a text file of one sequence a line")
          .arg(kProbeSentenceCount));
}

void HealthMeasureBar::setRun(RunSession* run) {
  if (run == m_run) return;
  if (m_runner->isRunning()) m_runner->cancel();
  m_run = run;
  m_runDirectory = run ? run->directory() : QString();
  m_note->clear();
  m_note->setToolTip(QString());
  fillSources();
  m_bar->setRunnable(run != nullptr);
}

void HealthMeasureBar::setTextFile(const QString& path) {
  m_textFile = path;
  m_chosenSource = TextFile;
  fillSources();
  m_source->setCurrentIndex(m_source->findData(TextFile));
}

QString HealthMeasureBar::chooseTextFile() {
  const QString path = QFileDialog::getOpenFileName(
      this, QStringLiteral("A text file to measure attention health on"),
      QFileInfo(m_textFile).path(), QStringLiteral("Text files (*.txt *.text);;All files (*)"));
  if (!path.isEmpty()) setTextFile(path);
  return path;
}

QString HealthMeasureBar::probeTextPath() const {
  if (m_runDirectory.isEmpty()) return {};
  const auto folder = analysis::reportsFolder(m_runDirectory.toStdString());
  return QString::fromStdString((folder / "health-probe-sentences.txt").string());
}

analysis::HealthJobOptions HealthMeasureBar::optionsFor(QString* whyNot) {
  analysis::HealthJobOptions options;
  options.run = m_runDirectory.toStdString();
  switch (m_source->currentData().toInt()) {
    case ProbeSentences: {
      // Written next to the reports, so the text a report names is there to read again.
      const QString path = probeTextPath();
      QDir().mkpath(QFileInfo(path).path());
      QFile file(path);
      if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text) ||
          file.write((firstProbeSentences(kProbeSentenceCount).join('\n') + '\n').toUtf8()) < 0)
        *whyNot = QStringLiteral("Cannot write the probe sentences to %1: %2")
                      .arg(path, file.errorString());
      options.text = path.toStdString();
      break;
    }
    case TextFile:
      if (m_textFile.isEmpty() && chooseTextFile().isEmpty())
        *whyNot = QStringLiteral("Choose a text file (one sequence a line) to measure on.");
      options.text = m_textFile.toStdString();
      break;
    default:  // the run's validation split: no text
      break;
  }
  return options;
}

bool HealthMeasureBar::measure() {
  QString whyNot;
  analysis::HealthJobOptions options;
  if (m_run == nullptr)
    whyNot = QStringLiteral("Select a run or a model folder to measure.");
  else if (m_runner->isRunning())
    whyNot = QStringLiteral("A measurement is running.");
  else
    options = optionsFor(&whyNot);
  const QString directory = m_runDirectory;
  const bool started =
      whyNot.isEmpty() &&
      m_runner->start<analysis::HealthJobResult>(
          QStringLiteral("attention health of %1").arg(m_run->name()),
          [options](const JobControl& control) {
            return analysis::runHealthJob(options, {}, control.progress, control.cancel);
          },
          [this, directory](const JobResult<analysis::HealthJobResult>& result) {
            if (!result.ok()) return;  // the bar says why
            emit measured(directory, result.value);
            if (directory != m_runDirectory) return;  // another run is selected now
            // Short on the bar (it must not widen the window); the paths in the tooltip.
            const auto& r = result.value->report;
            const QString folder = QString::fromStdString(result.value->folder.string());
            m_note->setText(QStringLiteral("step %1 · %2 sequences · report in %3")
                                .arg(r.source.step)
                                .arg(r.sequences)
                                .arg(QFileInfo(folder).fileName()));
            m_note->setToolTip(QStringLiteral("%1\nreport: %2")
                                   .arg(QString::fromStdString(r.evaluationDescription), folder));
          },
          &whyNot);
  if (!started) {
    m_note->setText(whyNot);
    return false;
  }
  m_bar->markStarted();
  m_note->clear();
  return true;
}

}  // namespace attnlab::app
