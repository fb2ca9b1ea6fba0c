// Data preparation as a person watches it in the real main window (QTest keys and clicks,
// offscreen): File > New run over a gzip-compressed JSON-lines corpus of about 25 MB and a
// tokenizer.model made beforehand; while the token store is built the status bar shows the
// phase, "12 / 24 MB" on the bar and "8.1 MB/s · ETA 0:02" beside it (a screenshot of the
// window is saved then); the run finishes and the console's data line says the tokenizer
// was loaded and the store has shards.

#include "app/gui/main_window.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/run_status_bar.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_coordinator.h"
#include "core/data/tokenizer_provider.h"
#include "tests/support/form_typing.h"

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QPixmap>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

using tests::typeField;

/// English-like sentences from a fixed generator over a few hundred words (names, numbers,
/// commas and quotes among them), one after another, with no newline.
class Sentences {
 public:
  explicit Sentences(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ull + 1) {}

  std::string next() {
    static const std::vector<std::string> kSubjects = split(
        "the old teacher|a young sailor|my grandmother|the village doctor|Anna|Peter|the "
        "children|our neighbours|a quiet stranger|the mayor of Lindenfeld|the baker's "
        "daughter|two tired travellers|the professor|every student|the captain|Margaret|"
        "the gardener|a small brown dog|the orchestra|the committee");
    static const std::vector<std::string> kVerbs = split(
        "remembered|carried|painted|discovered|described|forgot|borrowed|repaired|visited|"
        "measured|explained|photographed|ignored|admired|questioned|followed|delivered|"
        "collected|translated|recommended|examined|abandoned|celebrated|planted");
    static const std::vector<std::string> kObjects = split(
        "an ancient map|the silver lantern|a letter from London|the broken bridge|seventeen "
        "apples|the northern harbour|a forgotten melody|the museum's oldest clock|three "
        "wooden chairs|the evening newspaper|a recipe for plum cake|the mountain railway|"
        "the empty warehouse|a box of candles|the chemistry exam|a thunderstorm|the "
        "cathedral's bells|a bicycle without brakes|the river's source|twelve blue envelopes");
    static const std::vector<std::string> kTails = split(
        "before breakfast|during the long winter|near the station|without saying a word|"
        "after the concert|in 1887|on Tuesday morning|because nobody else would|with great "
        "patience|under a grey sky|for the third time|at the edge of the forest|while it "
        "rained|despite the noise|in the summer of 1962|beside the frozen lake");
    std::string s = pick(kSubjects) + ' ' + pick(kVerbs) + ' ' + pick(kObjects);
    if (draw() % 3 != 0) s += ' ' + pick(kTails);
    if (draw() % 4 == 0) s += ", and then " + pick(kSubjects) + ' ' + pick(kVerbs) + " it";
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    switch (draw() % 8) {
      case 0:
        return "\"" + s + "!\"";
      case 1:
        return s + '?';
      default:
        return s + '.';
    }
  }

 private:
  static std::vector<std::string> split(const std::string& all) {
    std::vector<std::string> parts;
    for (std::size_t at = 0; at <= all.size();) {
      const std::size_t end = std::min(all.find('|', at), all.size());
      parts.push_back(all.substr(at, end - at));
      at = end + 1;
    }
    return parts;
  }
  std::uint64_t draw() {  // splitmix64
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  const std::string& pick(const std::vector<std::string>& from) {
    return from[draw() % from.size()];
  }

  std::uint64_t m_state;
};

/// `text` as a JSON string's content: quotes, backslashes and newlines escaped.
std::string jsonEscaped(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

/// About `bytes` bytes of JSON lines {"id": n, "text": "..."} of one to six sentences, every
/// fourth record two paragraphs (a '\n' in its text).
std::string jsonLinesCorpus(std::uint64_t bytes) {
  Sentences sentences(11);
  std::string out;
  out.reserve(bytes + 4096);
  for (std::int64_t id = 0; out.size() < bytes; ++id) {
    const int count = 1 + static_cast<int>(id * 7 % 6);
    std::string text;
    for (int k = 0; k < count; ++k) {
      if (k > 0) text += (id % 4 == 3 && k == count / 2) ? '\n' : ' ';
      text += sentences.next();
    }
    out += "{\"id\": " + std::to_string(id) + ", \"text\": \"" + jsonEscaped(text) + "\"}\n";
  }
  return out;
}

/// About `bytes` bytes of plain text, a sentence a line.
std::string plainSample(std::uint64_t bytes) {
  Sentences sentences(3);
  std::string out;
  while (out.size() < bytes) out += sentences.next() + '\n';
  return out;
}

bool writeGzip(const fs::path& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  constexpr std::size_t kPart = std::size_t{1} << 20;
  bool ok = true;
  for (std::size_t at = 0; ok && at < bytes.size(); at += kPart) {
    const auto n = static_cast<unsigned>(std::min(kPart, bytes.size() - at));
    ok = gzwrite(f, bytes.data() + at, n) == static_cast<int>(n);
  }
  return gzclose(f) == Z_OK && ok;
}

}  // namespace

class TestDataPreparationWindow : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }
  QString qpath(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // Settings of this test only: runs folder, recent runs, layout.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, qpath("settings"));
    QStandardPaths::setTestModeEnabled(true);
    QSettings().setValue(QStringLiteral("paths/runsFolder"), qpath("runs"));

    // The corpus: about 25 MB of JSON lines, gzip-compressed, so the token store takes
    // seconds on one thread and its progress can be watched.
    QVERIFY(writeGzip(path("corpus.jsonl.gz"), jsonLinesCorpus(std::uint64_t{24} << 20)));

    // The tokenizer, made beforehand on a plain-text sample of the same words.
    std::ofstream(path("sample.txt"), std::ios::binary) << plainSample(300000);
    core::TokenizerConfig tokenizer;
    tokenizer.vocabSize = 200;
    fs::create_directories(path("tokenizer"));
    const core::ProvidedTokenizer made =
        core::provideTokenizer(tokenizer, path("sample.txt"), 1, path("tokenizer"), 42);
    QVERIFY(made.trained);
    QVERIFY(fs::exists(made.modelPath));
    m_tokenizerModel = QString::fromStdString(made.modelPath.string());
  }

  void showsTokenStoreProgressInBytesAndFinishes() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // File > New run (Ctrl+N): the tiny preset over the compressed JSON lines, 2 steps.
    app::NewRunDialog* dialog = tests::openNewRunDialog(window, "tiny");
    QVERIFY(dialog != nullptr);
    QVERIFY(typeField(dialog, "corpus.source", "text"));
    QVERIFY(typeField(dialog, "corpus.paths", qpath("corpus.jsonl.gz")));
    QVERIFY(typeField(dialog, "tokenizer.model", m_tokenizerModel));
    QVERIFY(typeField(dialog, "schedule.steps", "2"));
    QVERIFY(typeField(dialog, "schedule.warmup_steps", "1"));
    QVERIFY(typeField(dialog, "train.threads", "1"));
    QVERIFY(typeField(dialog, "data.shard_mb", "1"));
    QVERIFY(typeField(dialog, "train.batch_size", "8"));
    QVERIFY(typeField(dialog, "data.sequence_length", "32"));
    QTRY_VERIFY2(dialog->startButton()->isEnabled(), qPrintable(dialog->summaryText()));
    const QString runDir = dialog->runDirectory();

    // Every progress the window hears, to tell whether the corpus phase counted bytes.
    app::TrainingController* training = window.parts().training->inProcess();
    bool corpusBytesSeen = false;
    connect(training, &app::TrainingController::progressChanged, this, [&] {
      const app::EngineProgress& p = training->progress();
      if (p.phase == QStringLiteral("preparing data: corpus") && p.doneInBytes && p.done > 0)
        corpusBytesSeen = true;
    });

    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(dialog->startButton(), Qt::LeftButton);
    QTRY_VERIFY(training->isRunning());
    app::RunSession* run = window.parts().runs->find(runDir);
    QVERIFY(run != nullptr);

    // While the token store is built: the phase, MB on the bar, a rate and an ETA.
    const auto statusText = [&] { return window.parts().statusBar->text(); };
    const auto showsStoreProgress = [&] {
      const QString t = statusText();
      return t.contains(QStringLiteral("preparing data: token store")) &&
             t.contains(QStringLiteral(" MB")) && t.contains(QStringLiteral("MB/s")) &&
             t.contains(QStringLiteral("ETA"));
    };
    QTRY_VERIFY2_WITH_TIMEOUT(showsStoreProgress(), qPrintable(statusText()), 120000);
    const QString shown = statusText();
    const QImage shot = window.grab().toImage();
    const QString shotDir = qEnvironmentVariableIsSet("ATTNLAB_SCREENSHOT_DIR")
                                ? qEnvironmentVariable("ATTNLAB_SCREENSHOT_DIR")
                                : m_dir.path();
    QVERIFY(QDir().mkpath(shotDir));
    QVERIFY(shot.save(QDir(shotDir).filePath(QStringLiteral("data-preparation.png"))));
    qInfo("status bar at %.1f s: %s (corpus phase in bytes seen: %s)", clock.elapsed() / 1000.0,
          qPrintable(shown), corpusBytesSeen ? "yes" : "no");

    // The run trains its 2 steps; the data line: the tokenizer loaded, the store's shards.
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Finished, 240000);
    QTRY_VERIFY_WITH_TIMEOUT(window.parts().console->text().contains(QStringLiteral("shard(s)")),
                             10000);
    const QString console = window.parts().console->text();
    const QStringList lines = console.split(QLatin1Char('\n'));
    const auto dataLine = std::find_if(lines.begin(), lines.end(), [](const QString& line) {
      return line.contains(QStringLiteral("shard(s)"));
    });
    QVERIFY(dataLine != lines.end());
    QVERIFY2(dataLine->contains(QStringLiteral("(loaded)")), qPrintable(*dataLine));
    qInfo("data line: %s (%.1f s in all)", qPrintable(*dataLine), clock.elapsed() / 1000.0);
  }

 private:
  QString m_tokenizerModel;
};

QTEST_MAIN(TestDataPreparationWindow)
#include "test_data_preparation_window.moc"
