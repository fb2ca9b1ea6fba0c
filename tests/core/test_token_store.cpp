// Tokenizer provider and token store with a real (small) SentencePiece model: reuse,
// rebuilds on change, corruption, round trips, and the pipeline end to end.
#include "core/data/corpus_source.h"
#include "core/data/data_files.h"
#include "core/data/mlm_data.h"
#include "core/data/token_store.h"
#include "core/data/tokenizer_provider.h"
#include "core/data/wordnet_corpus.h"
#include "core/errors/error.h"

#include <torch/torch.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace fs = std::filesystem;
using namespace attnlab::core;

namespace {

/// `count` distinct plain-ASCII sentences (decode(encode(line)) gives them back exactly).
std::string sentences(int count, int variant = 0) {
  const char* subjects[] = {"the cat",    "a dog",     "my neighbour", "the old teacher",
                            "our prince", "the actor", "a young girl", "every farmer"};
  const char* verbs[] = {"watched", "admired", "followed", "painted", "described", "remembered"};
  const char* objects[] = {"the river",      "a bright star",     "the quiet village",
                           "an empty house", "the morning train", "several tall trees",
                           "a wooden bridge"};
  std::string text;
  for (int i = 0; i < count; ++i) {
    text += std::string(subjects[(i + variant) % 8]) + ' ' + verbs[(i / 8) % 6] + ' ' +
            objects[(i / 48) % 7] + " near the " + (i % 2 ? "harbour" : "mountains") + " at " +
            std::to_string(i % 97) + " o'clock.\n";
  }
  return text;
}

std::vector<std::string> readLines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

}  // namespace

class TestTokenStore : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    std::ofstream(root() / "text.txt") << sentences(5000);
    m_corpusConfig.source = CorpusSource::Text;
    m_corpusConfig.paths = {(root() / "text.txt").string()};
    m_tokConfig.vocabSize = 96;
  }

  void tokenizerIsTrainedThenReused() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto t1 = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    QVERIFY(t1.trained);
    QCOMPARE(t1.tokenizer->vocabSize(), 96);
    QCOMPARE(t1.modelPath, root() / "tokenizer.model");
    QVERIFY(fs::exists(root() / "tokenizer.settings"));
    const auto mtime = fs::last_write_time(t1.modelPath);

    const auto t2 = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    QVERIFY(!t2.trained);
    QCOMPARE(t2.fingerprint, t1.fingerprint);
    QVERIFY(fs::last_write_time(t2.modelPath) == mtime);

    // A different setting, seed or corpus retrains.
    auto changed = m_tokConfig;
    changed.vocabSize = 88;
    QVERIFY(provideTokenizer(changed, corpus.textPath, corpus.fingerprint, root(), 42).trained);
    QVERIFY(provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42).trained);
    QVERIFY(
        provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint + 1, root(), 42).trained);
    QVERIFY(provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 7).trained);
    QVERIFY(!provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 7).trained);
  }

  void givenModelIsLoadedAndCopied() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    TokenizerConfig given;
    given.model = (root() / "tokenizer.model").string();
    const fs::path other = root() / "other_run";
    const auto t = provideTokenizer(given, corpus.textPath, corpus.fingerprint, other, 42);
    QVERIFY(t.trained);  // copied into the run folder
    QCOMPARE(t.fingerprint, fingerprintOf(root() / "tokenizer.model"));
    QVERIFY(!provideTokenizer(given, corpus.textPath, corpus.fingerprint, other, 42).trained);
    given.model = (root() / "nope.model").string();
    QVERIFY_THROWS_EXCEPTION(
        attnlab::DataError, provideTokenizer(given, corpus.textPath, corpus.fingerprint, other, 1));
  }

  void storeIsBuiltReusedAndDecodesBack() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path storePath = root() / "cache" / "tokens.bin";
    fs::remove(storePath);
    const auto s1 = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint,
                                            *tok.tokenizer, tok.fingerprint);
    QVERIFY(s1.wasBuilt());
    QCOMPARE(s1.buildReason(), std::string("no store yet"));
    QCOMPARE(s1.lineCount(), std::int64_t(5000));
    QCOMPARE(s1.idWidth(), 2);
    QCOMPARE(s1.vocabSize(), 96);
    QCOMPARE(s1.header().corpusFingerprint, corpus.fingerprint);
    QCOMPARE(s1.header().tokenizerFingerprint, tok.fingerprint);
    QCOMPARE(std::uint64_t(fs::file_size(storePath)),
             64 + 8 * (5000 + 1) + 2 * std::uint64_t(s1.tokenCount()));

    const auto lines = readLines(corpus.textPath);
    for (std::int64_t i = 0; i < s1.lineCount(); ++i) {
      const auto ids = s1.line(i);
      QCOMPARE(ids, tok.tokenizer->encode(lines[static_cast<size_t>(i)]));
      QCOMPARE(tok.tokenizer->decode(ids), lines[static_cast<size_t>(i)]);
    }

    const auto mtime = fs::last_write_time(storePath);
    const auto s2 = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint,
                                            *tok.tokenizer, tok.fingerprint);
    QVERIFY(!s2.wasBuilt());
    QVERIFY(fs::last_write_time(storePath) == mtime);
    QCOMPARE(s2.tokenCount(), s1.tokenCount());

    // Encoding over 2 threads gives the same bytes as over 1 (5000 lines: 2 chunks).
    const auto single =
        TokenStore::openOrBuild(root() / "single.bin", corpus.textPath, corpus.fingerprint,
                                *tok.tokenizer, tok.fingerprint, 1);
    const auto dual =
        TokenStore::openOrBuild(root() / "dual.bin", corpus.textPath, corpus.fingerprint,
                                *tok.tokenizer, tok.fingerprint, 2);
    QVERIFY(single.wasBuilt() && dual.wasBuilt());
    QCOMPARE(fingerprintOf(root() / "single.bin"), fingerprintOf(root() / "dual.bin"));
  }

  void storeIsRebuiltWhenTheCorpusChanges() {
    auto config = m_corpusConfig;
    const auto corpus = buildCorpus(config, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path storePath = root() / "cache" / "tokens.bin";
    TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint, *tok.tokenizer,
                            tok.fingerprint);
    std::ofstream(root() / "more.txt") << "a dog painted the river near the harbour.\n";
    config.paths.push_back((root() / "more.txt").string());
    const auto bigger = buildCorpus(config, root() / "cache");
    QVERIFY(bigger.fingerprint != corpus.fingerprint);
    const auto s = TokenStore::openOrBuild(storePath, bigger.textPath, bigger.fingerprint,
                                           *tok.tokenizer, tok.fingerprint);
    QVERIFY(s.wasBuilt());
    QCOMPARE(s.buildReason(), std::string("corpus changed"));
    QCOMPARE(s.lineCount(), std::int64_t(5001));
    QCOMPARE(tok.tokenizer->decode(s.line(5000)),
             std::string("a dog painted the river near the harbour."));
  }

  void storeIsRebuiltWhenTheTokenizerChanges() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path storePath = root() / "cache" / "tokens.bin";
    const auto before = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint,
                                                *tok.tokenizer, tok.fingerprint);
    auto changed = m_tokConfig;
    changed.vocabSize = 80;
    const fs::path otherRun = root() / "run_b";
    const auto tok2 = provideTokenizer(changed, corpus.textPath, corpus.fingerprint, otherRun, 42);
    QVERIFY(tok2.fingerprint != tok.fingerprint);
    const auto s = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint,
                                           *tok2.tokenizer, tok2.fingerprint);
    QVERIFY(s.wasBuilt());
    QCOMPARE(s.buildReason(), std::string("tokenizer changed"));
    QCOMPARE(s.vocabSize(), 80);
    QVERIFY(s.tokenCount() != before.tokenCount());
  }

  void corruptStoreIsRebuilt() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path storePath = root() / "cache" / "tokens.bin";
    const auto good = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint,
                                              *tok.tokenizer, tok.fingerprint);
    const auto size = fs::file_size(storePath);
    const std::uint64_t fp = fingerprintOf(storePath);

    fs::resize_file(storePath, size / 2);  // an interrupted copy, say
    auto s = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint, *tok.tokenizer,
                                     tok.fingerprint);
    QVERIFY(s.wasBuilt());
    QVERIFY2(s.buildReason().find("truncated") != std::string::npos, s.buildReason().c_str());
    QCOMPARE(fingerprintOf(storePath), fp);

    {  // scribble over the offset table, keeping the size
      std::fstream f(storePath, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(64 + 8 * 10);
      const std::uint64_t junk = ~std::uint64_t(0);
      f.write(reinterpret_cast<const char*>(&junk), 8);
    }
    s = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint, *tok.tokenizer,
                                tok.fingerprint);
    QVERIFY(s.wasBuilt());
    QCOMPARE(s.buildReason(), std::string("corrupt line offset table"));
    QCOMPARE(fingerprintOf(storePath), fp);

    fs::resize_file(storePath, 0);
    s = TokenStore::openOrBuild(storePath, corpus.textPath, corpus.fingerprint, *tok.tokenizer,
                                tok.fingerprint);
    QVERIFY(s.wasBuilt());
    QCOMPARE(s.tokenCount(), good.tokenCount());
  }

  void pipelineEndToEndReusesItsWork() {
    RunConfig config;
    config.corpus = m_corpusConfig;
    config.tokenizer = m_tokConfig;
    config.data.sequenceLength = 32;
    config.train.batchSize = 8;
    const fs::path runDir = root() / "run";
    const auto first = prepareMlmData(config, runDir);
    QVERIFY(first.tokenizer.trained);
    QVERIFY(first.store.wasBuilt());
    QCOMPARE(first.cacheDir, runDir / "cache");
    QCOMPARE(first.split.validationLines.size(), size_t(50));
    QVERIFY(first.train.blocksPerEpoch() > 1000);
    QVERIFY(first.validation.blocksPerEpoch() > 5);
    const auto b = first.train.batch(0);
    QCOMPARE(b.inputIds.sizes().vec(), (std::vector<std::int64_t>{8, 32}));

    const auto again = prepareMlmData(config, runDir);  // a resumed run
    QVERIFY(!again.tokenizer.trained);
    QVERIFY(!again.store.wasBuilt());
    QVERIFY(again.train.batch(123).inputIds.equal(first.train.batch(123).inputIds));
    QVERIFY(again.validation.batch(0).labels.equal(first.validation.batch(0).labels));
  }

  // The real corpus: 117,659 WordNet glosses through the whole pipeline.
  void wordnetEndToEnd() {
    if (!fs::exists(fs::path(kDefaultWordNetDir) / "data.noun"))
      QSKIP("wordnet-base not installed");
    RunConfig config;
    config.tokenizer.vocabSize = 2000;
    config.tokenizer.inputSentenceSize = 30000;
    config.data.sequenceLength = 128;
    const fs::path runDir = root() / "wordnet_run";
    QElapsedTimer timer;
    timer.start();
    const auto data = prepareMlmData(config, runDir);
    const qint64 firstMs = timer.restart();
    QCOMPARE(data.corpus.stats.linesKept, std::uint64_t(117659));
    QCOMPARE(data.store.lineCount(), std::int64_t(117659));
    QVERIFY(data.store.wasBuilt());
    qInfo(
        "wordnet: corpus %llu lines %llu words %llu bytes; %lld tokens; store built in %.2f s; "
        "first prepare %lld ms; train blocks %lld, validation blocks %lld",
        static_cast<unsigned long long>(data.corpus.stats.linesKept),
        static_cast<unsigned long long>(data.corpus.stats.words),
        static_cast<unsigned long long>(data.corpus.stats.bytes),
        static_cast<long long>(data.store.tokenCount()), data.store.buildSeconds(), firstMs,
        static_cast<long long>(data.train.blocksPerEpoch()),
        static_cast<long long>(data.validation.blocksPerEpoch()));
    const auto again = prepareMlmData(config, runDir);
    const qint64 secondMs = timer.restart();
    QVERIFY(!again.tokenizer.trained && !again.store.wasBuilt());
    qInfo("wordnet: second prepare (reuse) %lld ms", secondMs);
    const auto lines = readLines(data.corpus.textPath);
    for (const std::int64_t i : {std::int64_t(0), std::int64_t(5000), std::int64_t(117658)}) {
      const auto& text = lines[static_cast<size_t>(i)];
      const auto ids = data.store.line(i);
      QCOMPARE(ids, data.tokenizer.tokenizer->encode(text));
    }
    for (int s = 0; s < 20; ++s) data.train.batch(s);
    qInfo("wordnet: 20 batches of 32x128 in %lld ms", timer.restart());
  }

 private:
  static std::uint64_t fingerprintOf(const fs::path& p) { return fingerprintFile(p); }
  fs::path root() const { return fs::path(m_dir.path().toStdString()); }
  QTemporaryDir m_dir;
  CorpusConfig m_corpusConfig;
  TokenizerConfig m_tokConfig;
};

QTEST_GUILESS_MAIN(TestTokenStore)
#include "test_token_store.moc"
