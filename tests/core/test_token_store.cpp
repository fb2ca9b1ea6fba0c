// Tokenizer provider and token store with a real (small) SentencePiece model: reuse,
// rebuilds on change, corruption, round trips, and the pipeline end to end.
#include "core/data/corpus_source.h"
#include "core/data/data_files.h"
#include "core/data/line_sample.h"
#include "core/data/mlm_data.h"
#include "core/data/sharded_store_index.h"
#include "core/data/sharded_token_store.h"
#include "core/data/tokenizer_provider.h"
#include "core/data/wordnet_corpus.h"
#include "core/errors/error.h"

#include <torch/torch.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

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

  // Above 24 MiB of text the tokenizer trains on 24 MiB's worth of mean-length lines.
  void largeCorporaTrainTheTokenizerOnASample() {
    QCOMPARE(tokenizerSampleLines(0, 1000, 1 << 20), std::int64_t(0));  // all lines
    QCOMPARE(tokenizerSampleLines(0, 1000000, std::uint64_t(24) << 20), std::int64_t(0));
    // 100 MiB in 1,000,000 lines: 104.8576 bytes a line, 24 MiB / 104.8576 = 240,000.
    QCOMPARE(tokenizerSampleLines(0, 1000000, std::uint64_t(100) << 20), std::int64_t(240000));
    QCOMPARE(tokenizerSampleLines(5000, 1000000, std::uint64_t(100) << 20), std::int64_t(5000));
  }

  // The tokenizer's sample of a large corpus: exactly the count asked for, in the file's order,
  // reproducible by seed, spread over the whole file (mean index and first-half share within
  // five standard deviations of a uniform draw without replacement).
  void lineSampleIsSeededUniformAndInOrder() {
    const fs::path text = root() / "numbered.txt";
    {
      std::ofstream out(text);
      for (int i = 0; i < 10000; ++i) out << "line " << i << '\n';
    }
    QCOMPARE(writeLineSample(text, 1000, 7, root() / "s7.txt"), std::int64_t(1000));
    const auto lines = readLines(root() / "s7.txt");
    QCOMPARE(lines.size(), size_t(1000));
    std::vector<int> index;
    for (const auto& l : lines) index.push_back(std::stoi(l.substr(5)));
    QVERIFY(std::is_sorted(index.begin(), index.end()));
    QVERIFY(std::adjacent_find(index.begin(), index.end()) == index.end());
    QVERIFY(index.front() >= 0 && index.back() < 10000);
    double mean = 0;
    for (const int i : index) mean += i / 1000.0;
    // sd of the mean: 2886.8 / sqrt(1000) * sqrt(1 - 1000/10000) = 86.6
    QVERIFY2(std::abs(mean - 4999.5) < 5 * 86.6, std::to_string(mean).c_str());
    const auto firstHalf =
        std::count_if(index.begin(), index.end(), [](int i) { return i < 5000; });
    QVERIFY2(std::abs(firstHalf - 500) < 5 * 15.0, std::to_string(firstHalf).c_str());

    writeLineSample(text, 1000, 7, root() / "again.txt");
    QCOMPARE(fingerprintOf(root() / "again.txt"), fingerprintOf(root() / "s7.txt"));
    writeLineSample(text, 1000, 8, root() / "s8.txt");
    QVERIFY(fingerprintOf(root() / "s8.txt") != fingerprintOf(root() / "s7.txt"));
    QCOMPARE(writeLineSample(text, 20000, 7, root() / "all.txt"), std::int64_t(10000));
    QCOMPARE(fingerprintOf(root() / "all.txt"), fingerprintOf(text));
  }

  void givenModelIsLoadedAndCopied() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    TokenizerConfig given;
    given.model = (root() / "tokenizer.model").string();
    const fs::path other = root() / "other_run";
    const auto t = provideTokenizer(given, corpus.textPath, corpus.fingerprint, other, 42);
    QVERIFY(!t.trained);  // copied into the run folder, not trained
    QVERIFY(t.origin == TokenizerOrigin::Loaded);
    QVERIFY(fs::exists(other / "tokenizer.model"));
    QCOMPARE(t.fingerprint, fingerprintOf(root() / "tokenizer.model"));
    QVERIFY(provideTokenizer(given, corpus.textPath, corpus.fingerprint, other, 42).origin ==
            TokenizerOrigin::Loaded);
    given.model = (root() / "nope.model").string();
    QVERIFY_THROWS_EXCEPTION(
        attnlab::DataError, provideTokenizer(given, corpus.textPath, corpus.fingerprint, other, 1));
  }

  void storeIsBuiltReusedAndDecodesBack() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path folder = root() / "cache" / "tokens";
    fs::remove_all(folder);
    const auto s1 = build(corpus, tok, folder);
    QVERIFY(s1.wasBuilt());
    QCOMPARE(s1.buildReason(), std::string("no store yet"));
    QCOMPARE(s1.lineCount(), std::int64_t(5000));
    QCOMPARE(s1.vocabSize(), 96);
    // ~330 KB of text in 16 KiB shards.
    QVERIFY2(s1.shardCount() > 15, std::to_string(s1.shardCount()).c_str());
    QCOMPARE(s1.shardsEncoded(), s1.shardCount());
    QVERIFY(fs::exists(folder / "index.json"));

    // validation_fraction 0.01 of 5000 lines: n = 50, line i is validation when
    // floor((i+1) 50 / 5000) > floor(i 50 / 5000), i.e. lines 99, 199, ..., 4999.
    const auto lines = readLines(corpus.textPath);
    std::int64_t train = 0;
    std::int64_t validation = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const bool isValidation = (i + 1) % 100 == 0;
      const auto ids = isValidation ? s1.validation().line(validation++) : s1.train().line(train++);
      QCOMPARE(ids, tok.tokenizer->encode(lines[i]));
      QCOMPARE(tok.tokenizer->decode(ids), lines[i]);
    }
    QCOMPARE(train, s1.train().lineCount());
    QCOMPARE(validation, std::int64_t(50));
    QCOMPARE(s1.validation().lineCount(), std::int64_t(50));

    const auto mtime = fs::last_write_time(folder / "index.json");
    const auto s2 = build(corpus, tok, folder);
    QVERIFY(!s2.wasBuilt());
    QVERIFY(fs::last_write_time(folder / "index.json") == mtime);
    QCOMPARE(s2.tokenCount(), s1.tokenCount());
  }

  // Blocks cut from many shards are those of the training lines' stream, built here from the
  // corpus and the tokenizer alone: ids(l0) </s> ids(l1) </s> ..., cut every T - 2 ids, each
  // block <s> + slice + </s> + padding (and in line mode one line per block).
  void blocksOfManyShardsAreTheCorpusStream() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const auto store = build(corpus, tok, root() / "blocks");
    QVERIFY(store.train().parts().size() > 15);
    const auto specials = tok.tokenizer->specialIds();
    const auto lines = readLines(corpus.textPath);
    std::vector<std::int64_t> stream;
    std::vector<std::vector<int>> trainLines;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if ((i + 1) % 100 == 0) continue;  // validation: lines 99, 199, ...
      trainLines.push_back(tok.tokenizer->encode(lines[i]));
      if (!stream.empty()) stream.push_back(specials.eos);
      stream.insert(stream.end(), trainLines.back().begin(), trainLines.back().end());
    }
    const int T = 24;
    const BlockSet packed(store.train(), T, Packing::Pack, specials);
    const std::int64_t content = T - 2;
    // A last block under kMinLastBlockTokens (8) ids is dropped.
    std::int64_t blocks = (std::ssize(stream) + content - 1) / content;
    if (std::ssize(stream) - (blocks - 1) * content < 8) --blocks;
    QCOMPARE(packed.size(), blocks);
    std::vector<std::int64_t> out(T);
    for (std::int64_t b = 0; b < packed.size(); ++b) {
      packed.fill(b, out);
      const std::int64_t begin = b * content;
      const std::int64_t n = std::min<std::int64_t>(content, std::ssize(stream) - begin);
      std::vector<std::int64_t> want{specials.bos};
      want.insert(want.end(), stream.begin() + begin, stream.begin() + begin + n);
      want.push_back(specials.eos);
      want.resize(T, specials.pad);
      QCOMPARE(out, want);
    }
    const BlockSet perLine(store.train(), T, Packing::Line, specials);
    QCOMPARE(perLine.size(), std::ssize(trainLines));
    for (const std::int64_t b : {std::int64_t(0), std::int64_t(1234), perLine.size() - 1}) {
      perLine.fill(b, out);
      const auto& ids = trainLines[static_cast<std::size_t>(b)];
      const auto n = std::min<std::size_t>(ids.size(), content);
      QCOMPARE(std::vector<std::int64_t>(out.begin() + 1, out.begin() + 1 + std::ptrdiff_t(n)),
               std::vector<std::int64_t>(ids.begin(), ids.begin() + std::ptrdiff_t(n)));
    }
  }

  // The files do not depend on how many threads encoded them.
  void oneAndTwoThreadsWriteTheSameBytes() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const auto single = build(corpus, tok, root() / "single", 1);
    const auto dual = build(corpus, tok, root() / "dual", 2);
    QVERIFY(single.wasBuilt() && dual.wasBuilt());
    const auto a = folderFingerprints(root() / "single");
    QCOMPARE(a, folderFingerprints(root() / "dual"));
    QVERIFY(a.size() > 30);  // index.json and two files per shard
  }

  void storeIsRebuiltWhenTheCorpusChanges() {
    auto config = m_corpusConfig;
    const auto corpus = buildCorpus(config, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path folder = root() / "cache" / "tokens";
    build(corpus, tok, folder);
    std::ofstream(root() / "more.txt") << "a dog painted the river near the harbour.\n";
    config.paths.push_back((root() / "more.txt").string());
    const auto bigger = buildCorpus(config, root() / "cache");
    QVERIFY(bigger.fingerprint != corpus.fingerprint);
    const auto s = build(bigger, tok, folder);
    QVERIFY(s.wasBuilt());
    QCOMPARE(s.buildReason(), std::string("corpus changed"));
    QCOMPARE(s.shardsReused(), std::int64_t(0));  // another corpus: no shard is kept
    QCOMPARE(s.lineCount(), std::int64_t(5001));
    // 5001 lines, n = round(50.01) = 50: the last line is always a validation line
    // (floor(L n / L) = n > floor((L - 1) n / L) = n - 1).
    QCOMPARE(tok.tokenizer->decode(s.validation().line(49)),
             std::string("a dog painted the river near the harbour."));
  }

  void storeIsRebuiltWhenTheTokenizerOrSplitChanges() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path folder = root() / "cache" / "tokens";
    const auto before = build(corpus, tok, folder);
    auto changed = m_tokConfig;
    changed.vocabSize = 80;
    const auto tok2 =
        provideTokenizer(changed, corpus.textPath, corpus.fingerprint, root() / "run_b", 42);
    QVERIFY(tok2.fingerprint != tok.fingerprint);
    const auto s = build(corpus, tok2, folder);
    QVERIFY(s.wasBuilt());
    QCOMPARE(s.buildReason(), std::string("tokenizer changed"));
    QCOMPARE(s.vocabSize(), 80);
    QVERIFY(s.tokenCount() != before.tokenCount());

    TokenStoreKey key = keyOf(corpus, tok2);
    key.validationLines = 10;
    std::string why;
    QVERIFY(!ShardedTokenStore::tryOpen(folder, key, &why));
    QCOMPARE(why, std::string("validation split changed"));
    const auto tail = ShardedTokenStore::openOrBuild(folder, corpus.textPath, key, *tok2.tokenizer);
    QCOMPARE(tail.validation().lineCount(), std::int64_t(10));
    // data.validation_lines = 10: the last ten lines.
    const auto lines = readLines(corpus.textPath);
    QCOMPARE(tail.validation().line(0), tok2.tokenizer->encode(lines[4990]));
  }

  void aDamagedShardIsEncodedAgainAlone() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path folder = root() / "damaged";
    const auto good = build(corpus, tok, folder);
    const auto reference = folderFingerprints(folder);
    const fs::path shard = folder / "train-00003.bin";

    fs::resize_file(shard, fs::file_size(shard) / 2);  // an interrupted copy, say
    auto s = build(corpus, tok, folder);
    QVERIFY(s.wasBuilt());
    QVERIFY2(s.buildReason().rfind("shard train-00003.bin: truncated", 0) == 0,
             s.buildReason().c_str());
    QCOMPARE(s.shardsEncoded(), std::int64_t(1));
    QCOMPARE(s.shardsReused(), good.shardCount() - 1);
    QCOMPARE(folderFingerprints(folder), reference);

    {  // scribble over the offset table, keeping the size
      std::fstream f(shard, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(64 + 8 * 10);
      const std::uint64_t junk = ~std::uint64_t(0);
      f.write(reinterpret_cast<const char*>(&junk), 8);
    }
    s = build(corpus, tok, folder);
    QCOMPARE(s.buildReason(), std::string("shard train-00003.bin: corrupt line offset table"));
    QCOMPARE(s.shardsEncoded(), std::int64_t(1));
    QCOMPARE(folderFingerprints(folder), reference);

    // A shard of another chunk under this one's name is not taken for it.
    fs::copy_file(folder / "train-00004.bin", shard, fs::copy_options::overwrite_existing);
    s = build(corpus, tok, folder);
    QCOMPARE(s.buildReason(), std::string("shard train-00003.bin: corpus changed"));
    QCOMPARE(folderFingerprints(folder), reference);
  }

  // What a build killed halfway leaves: finished shards, no index, a temporary a writer
  // was writing, a shard cut short (a disk that filled up). The restart keeps the finished
  // shards, encodes the others, and equals a clean build. A stop asked for before the first
  // shard ends the build with Cancelled and no index.
  void anInterruptedBuildResumesFromItsFinishedShards() {
    const auto corpus = buildCorpus(m_corpusConfig, root() / "cache");
    const auto tok = provideTokenizer(m_tokConfig, corpus.textPath, corpus.fingerprint, root(), 42);
    const fs::path folder = root() / "interrupted";
    fs::remove_all(folder);
    ShardBuildOptions stopAtOnce;
    stopAtOnce.progress = [](std::uint64_t, std::uint64_t) { return false; };
    QVERIFY_THROWS_EXCEPTION(attnlab::Cancelled, ShardedTokenStore::openOrBuild(
                                                     folder, corpus.textPath, keyOf(corpus, tok),
                                                     *tok.tokenizer, stopAtOnce));
    QVERIFY(!fs::exists(folder / "index.json"));

    const auto clean = build(corpus, tok, folder);
    const auto reference = folderFingerprints(folder);
    fs::remove(folder / "index.json");
    std::int64_t removed = 0;
    for (std::int64_t i = 0; i < clean.shardCount(); i += 3, ++removed) {
      fs::remove(folder / shardFileName(ShardRole::Train, static_cast<std::size_t>(i)));
    }
    const fs::path cut = folder / shardFileName(ShardRole::Validation, 1);
    fs::resize_file(cut, fs::file_size(cut) - 2);
    std::ofstream(folder / "train-00000.bin.tmp-999999999") << "half";  // a killed writer's

    const auto s = build(corpus, tok, folder, 2);
    QVERIFY(s.wasBuilt());
    QCOMPARE(s.buildReason(), std::string("no store yet"));
    QCOMPARE(s.shardsEncoded(), removed + 1);
    QCOMPARE(s.shardsReused(), clean.shardCount() - removed - 1);
    QVERIFY(!fs::exists(folder / "train-00000.bin.tmp-999999999"));
    QCOMPARE(folderFingerprints(folder), reference);
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
    QCOMPARE(first.store.validation().lineCount(), std::int64_t(50));
    QCOMPARE(first.cacheDir / "tokens", first.store.folder());
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
    QVERIFY(data.tokenizer.origin == TokenizerOrigin::Trained);
    QCOMPARE(data.tokenizer.trainingLines, std::int64_t(30000));
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
    // validation_fraction 0.01 of 117,659 lines: n = 1177. Lines 0 and 1 are training lines
    // (floor(2 n / L) = 0); the last line is the last (1177th) validation line.
    QCOMPARE(data.store.train().line(0), data.tokenizer.tokenizer->encode(lines[0]));
    QCOMPARE(data.store.train().line(1), data.tokenizer.tokenizer->encode(lines[1]));
    QCOMPARE(data.store.validation().line(1176), data.tokenizer.tokenizer->encode(lines[117658]));
    for (int s = 0; s < 20; ++s) data.train.batch(s);
    qInfo("wordnet: 20 batches of 32x128 in %lld ms", timer.restart());
  }

 private:
  static std::uint64_t fingerprintOf(const fs::path& p) { return fingerprintFile(p); }
  static TokenStoreKey keyOf(const CorpusBuild& corpus, const ProvidedTokenizer& tok) {
    TokenStoreKey key;
    key.corpusFingerprint = corpus.fingerprint;
    key.tokenizerFingerprint = tok.fingerprint;
    key.validationFraction = 0.01;
    key.chunkBytes = 16 * 1024;  // many shards from a small corpus
    return key;
  }
  static ShardedTokenStore build(const CorpusBuild& corpus, const ProvidedTokenizer& tok,
                                 const fs::path& folder, int threads = 0) {
    ShardBuildOptions options;
    options.threads = threads;
    return ShardedTokenStore::openOrBuild(folder, corpus.textPath, keyOf(corpus, tok),
                                          *tok.tokenizer, options);
  }
  /// Every file of `folder` by name, with its FNV-1a fingerprint.
  static std::map<std::string, std::uint64_t> folderFingerprints(const fs::path& folder) {
    std::map<std::string, std::uint64_t> out;
    for (const auto& e : fs::directory_iterator(folder)) {
      out[e.path().filename().string()] = fingerprintFile(e.path());
    }
    return out;
  }
  fs::path root() const { return fs::path(m_dir.path().toStdString()); }
  QTemporaryDir m_dir;
  CorpusConfig m_corpusConfig;
  TokenizerConfig m_tokConfig;
};

QTEST_GUILESS_MAIN(TestTokenStore)
#include "test_token_store.moc"
