// SentencePiece beside LibTorch in one process: the reason the bridge exists.
#include "core/errors/error.h"
#include "core/tokenizer/sentencepiece_library.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <torch/torch.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using attnlab::core::SentencePieceLibrary;
using attnlab::core::SentencePieceTokenizer;
using attnlab::core::TokenizerAlgorithm;
using attnlab::core::TokenizerTrainOptions;

namespace {

// A small English text with enough variety for a few hundred pieces.
void writeTrainingText(const std::string& path) {
  const char* subjects[] = {"the cat",    "a dog",     "my neighbour", "the old teacher",
                            "our prince", "the actor", "a young girl", "every farmer"};
  const char* verbs[] = {"watched", "admired", "followed", "painted", "described", "remembered"};
  const char* objects[] = {"the river",      "a bright star",     "the quiet village",
                           "an empty house", "the morning train", "several tall trees",
                           "a wooden bridge"};
  std::ofstream out(path);
  for (int i = 0; i < 600; ++i) {
    out << subjects[i % 8] << ' ' << verbs[(i / 8) % 6] << ' ' << objects[(i / 48) % 7]
        << " near the " << (i % 2 ? "harbour" : "mountains") << ".\n";
  }
}

double torchCheck(int seed) {
  torch::manual_seed(seed);
  auto a = torch::randn({64, 64});
  auto q = at::linalg_qr(a);  // ATen's op: the C++ torch::linalg namespace is gone in 2.x
  auto orth = std::get<0>(q);
  // Q^T Q = I for an orthogonal factor: an independent fact to check LibTorch by.
  return (torch::mm(orth.t(), orth) - torch::eye(64)).abs().max().item<double>();
}

}  // namespace

class TestTokenizerWithTorch : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void trainEncodeDecodeBetweenTorchCalls() {
    QVERIFY(torchCheck(1) < 1e-4);

    const std::string text = m_dir.filePath("corpus.txt").toStdString();
    writeTrainingText(text);
    TokenizerTrainOptions options;
    options.inputs = {text};
    options.modelPrefix = m_dir.filePath("spm").toStdString();
    options.vocabSize = 64;
    SentencePieceTokenizer::train(options);
    const auto tok = SentencePieceTokenizer::load(m_dir.filePath("spm.model").toStdString());

    QCOMPARE(tok.vocabSize(), 64);
    QCOMPARE(tok.specialIds().pad, 0);
    QCOMPARE(tok.specialIds().bos, 1);
    QCOMPARE(tok.specialIds().eos, 2);
    QCOMPARE(tok.specialIds().mask, 3);
    QCOMPARE(tok.specialIds().unk, 4);
    QCOMPARE(tok.idToPiece(3), std::string("<mask>"));

    const std::string sentence = "the old teacher admired a wooden bridge near the harbour.";
    const auto ids = tok.encode(sentence);
    QVERIFY(ids.size() >= 5);
    for (const int id : ids) QVERIFY(id > 4 && id < 64);  // no specials, no unknowns
    QCOMPARE(tok.decode(ids), sentence);

    // "<mask>" typed in text is the mask piece (inspect relies on it).
    const auto masked = tok.encode("the <mask> watched");
    QVERIFY(std::find(masked.begin(), masked.end(), 3) != masked.end());

    QVERIFY(torchCheck(2) < 1e-4);
    QVERIFY(!SentencePieceLibrary::loadedPath().empty());
  }

  void bpeAlgorithmTrains() {
    const std::string text = m_dir.filePath("corpus_bpe.txt").toStdString();
    writeTrainingText(text);
    TokenizerTrainOptions options;
    options.inputs = {text};
    options.modelPrefix = m_dir.filePath("bpe").toStdString();
    options.vocabSize = 100;
    options.algorithm = TokenizerAlgorithm::Bpe;
    SentencePieceTokenizer::train(options);
    const auto tok = SentencePieceTokenizer::load(m_dir.filePath("bpe.model").toStdString());
    QCOMPARE(tok.decode(tok.encode("a dog followed the river")),
             std::string("a dog followed the river"));
  }

  // The .model is a standard SentencePiece file: Python's sentencepiece agrees on ids.
  void pythonSentencePieceGivesSameIds() {
    const QString model = m_dir.filePath("spm.model");
    QVERIFY2(QFile::exists(model), "run after trainEncodeDecodeBetweenTorchCalls");
    const QStringList lines = {"the cat painted the quiet village near the mountains.",
                               "every farmer remembered several tall trees",
                               "unseen words: zebra quartz!"};
    const QString textPath = m_dir.filePath("compare.txt");
    {
      QFile f(textPath);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(lines.join('\n').toUtf8() + '\n');
    }
    QProcess python;
    python.start(
        QStringLiteral(ATTNLAB_PYTHON),
        {QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/core/sentencepiece_ids.py"), model, textPath});
    QVERIFY2(python.waitForFinished(60000), "python3 did not finish");
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const QStringList pyLines =
        QString::fromUtf8(python.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(pyLines.size(), lines.size());

    const auto tok = SentencePieceTokenizer::load(model.toStdString());
    for (int i = 0; i < lines.size(); ++i) {
      QStringList ours;
      for (const int id : tok.encode(lines[i].toStdString())) ours << QString::number(id);
      QCOMPARE(ours.join(' '), pyLines[i]);
    }
  }

  void vocabularyTooLargeIsTranslated() {
    const std::string text = m_dir.filePath("tiny.txt").toStdString();
    std::ofstream(text) << "ab ab ab\nba ba\n";
    TokenizerTrainOptions options;
    options.inputs = {text};
    options.modelPrefix = m_dir.filePath("toolarge").toStdString();
    options.vocabSize = 5000;
    try {
      SentencePieceTokenizer::train(options);
      QFAIL("training a 5000-piece vocabulary on 5 words must fail");
    } catch (const attnlab::TokenizerError& e) {
      const QString msg = QString::fromUtf8(e.what());
      QVERIFY2(msg.contains("vocabulary size 5000") && msg.contains("vocab_size"), e.what());
    }
  }

  void missingModelNamesThePath() {
    try {
      SentencePieceTokenizer::load("/nonexistent/folder/x.model");
      QFAIL("loading a missing model must fail");
    } catch (const attnlab::TokenizerError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains("/nonexistent/folder/x.model"), e.what());
    }
  }

  void candidatePathsAreRelativeToTheExecutable() {
    const auto paths = SentencePieceLibrary::candidatePaths();
    QVERIFY(paths.size() >= 3);
    const QString binDir = QCoreApplication::applicationDirPath();
    bool relative = false;
    for (const auto& p : paths) {
      if (QString::fromStdString(p.string()).startsWith(QFileInfo(binDir).dir().absolutePath()))
        relative = true;
    }
    QVERIFY(relative);
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestTokenizerWithTorch)
#include "test_tokenizer_with_torch.moc"
