// The SentencePiece bridge served by attnlab-spbridge-host (ATTNLAB_SPBRIDGE_MODE=process,
// and always in sanitizer builds): the same pieces and ids as Python's sentencepiece, the
// bridge's own errors passed through, a real child process, and a clear error (not a
// crash or a hang) once that process is gone.
#include "core/errors/error.h"
#include "core/tokenizer/sentencepiece_library.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using attnlab::core::SentencePieceLibrary;
using attnlab::core::SentencePieceTokenizer;
using attnlab::core::TokenizerTrainOptions;

namespace {

// The children of this process whose command name is `comm` (as /proc/PID/stat gives it).
QList<pid_t> childrenNamed(const QByteArray& comm) {
  QList<pid_t> found;
  for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    bool isPid = false;
    const pid_t pid = entry.toInt(&isPid);
    if (!isPid) continue;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) continue;
    const QByteArray line = stat.readAll();
    const qsizetype open = line.indexOf('(');
    const qsizetype close = line.lastIndexOf(')');
    if (open < 0 || close < open) continue;
    const QList<QByteArray> rest = line.mid(close + 2).split(' ');
    if (line.mid(open + 1, close - open - 1) == comm && rest.size() > 1 &&
        rest[1].toInt() == getpid()) {
      found << pid;
    }
  }
  return found;
}

}  // namespace

class TestTokenizerHost : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // Before the first call: the library picks its route once per process.
    qputenv("ATTNLAB_SPBRIDGE_MODE", "process");
    std::ofstream out(m_dir.filePath("corpus.txt").toStdString());
    for (int i = 0; i < 400; ++i) {
      out << "sentence " << i % 37 << " about the river and the " << (i % 3 ? "hill" : "sea")
          << " near town " << i % 11 << ".\n";
    }
  }

  void trainsAndLoadsThroughAChildProcess() {
    TokenizerTrainOptions options;
    options.inputs = {m_dir.filePath("corpus.txt").toStdString()};
    options.modelPrefix = m_dir.filePath("spm").toStdString();
    options.vocabSize = 40;
    SentencePieceTokenizer::train(options);
    const auto tok = SentencePieceTokenizer::load(m_dir.filePath("spm.model").toStdString());
    QCOMPARE(tok.vocabSize(), 40);
    QCOMPARE(tok.idToPiece(3), std::string("<mask>"));
    QCOMPARE(tok.pieceToId("<mask>"), 3);

    // "attnlab-spbridge-host" as the kernel keeps it: the first 15 bytes.
    const QList<pid_t> hosts = childrenNamed("attnlab-spbridg");
    QCOMPARE(hosts.size(), 1);
    QVERIFY(!SentencePieceLibrary::loadedPath().empty());
  }

  // Ids checked against Python's sentencepiece, a reading independent of the host.
  void idsEqualPythonSentencePiece() {
    const QString model = m_dir.filePath("spm.model");
    const auto tok = SentencePieceTokenizer::load(model.toStdString());
    const std::string text = "sentence 12 about the sea near town 4.";
    const auto ids = tok.encode(text);
    QCOMPARE(tok.decode(ids), text);

    QProcess py;
    py.start(
        ATTNLAB_PYTHON,
        {"-c",
         "import sys, sentencepiece as s; p = s.SentencePieceProcessor(model_file=sys.argv[1]);"
         "print(' '.join(map(str, p.encode(sys.argv[2]))))",
         model, QString::fromStdString(text)});
    QVERIFY(py.waitForFinished(60000));
    if (py.exitCode() != 0) QSKIP("Python's sentencepiece is not installed");
    QStringList expected;
    for (const int id : ids) expected << QString::number(id);
    QCOMPARE(QString::fromUtf8(py.readAllStandardOutput()).trimmed(), expected.join(' '));
  }

  // A long text, many ids: replies far larger than one socket buffer.
  void longTextsRoundTrip() {
    const auto tok = SentencePieceTokenizer::load(m_dir.filePath("spm.model").toStdString());
    std::string text;
    for (int i = 0; i < 2000; ++i) text += "the river near town " + std::to_string(i % 11) + ". ";
    text.pop_back();
    const auto ids = tok.encode(text);
    QVERIFY(ids.size() > 8000);
    QCOMPARE(tok.decode(ids), text);
  }

  void bridgeErrorsPassThrough() {
    try {
      SentencePieceTokenizer::load("/nonexistent/folder/x.model");
      QFAIL("loading a missing model must fail");
    } catch (const attnlab::TokenizerError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains("/nonexistent/folder/x.model"), e.what());
    }
    try {
      SentencePieceTokenizer::load(m_dir.filePath("spm.model").toStdString()).idToPiece(40);
      QFAIL("an id past the vocabulary must fail");
    } catch (const attnlab::TokenizerError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains("out of range [0, 40)"), e.what());
    }
  }

  // Last: afterwards this process has no tokenizer.
  void aKilledHostGivesAnErrorNotACrash() {
    const auto tok = SentencePieceTokenizer::load(m_dir.filePath("spm.model").toStdString());
    const QList<pid_t> hosts = childrenNamed("attnlab-spbridg");
    QCOMPARE(hosts.size(), 1);
    QCOMPARE(kill(hosts.front(), SIGKILL), 0);
    QCOMPARE(waitpid(hosts.front(), nullptr, 0), hosts.front());
    try {
      tok.encode("the river");
      QFAIL("encoding after the host was killed must fail");
    } catch (const attnlab::TokenizerError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains("attnlab-spbridge-host") &&
                   QString::fromUtf8(e.what()).contains("has ended"),
               e.what());
    }
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestTokenizerHost)
#include "test_tokenizer_host.moc"
