#include "core/data/corpus_source.h"

#include "core/data/data_files.h"
#include "core/data/hashing.h"
#include "core/data/text_encoding.h"
#include "core/data/wordnet_corpus.h"
#include "core/errors/error.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

using InvalidLinePolicy = InvalidUtf8Policy;

std::string hexByte(unsigned char c) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%02X", c);
  return buf.data();
}

/// Appends kept lines to the temporary corpus file and keeps the books.
class CorpusWriter {
 public:
  CorpusWriter(const fs::path& tmp, InvalidLinePolicy policy, std::int64_t maxLines)
      : m_tmp(tmp),
        m_out(tmp, std::ios::binary | std::ios::trunc),
        m_policy(policy),
        m_maxLines(maxLines) {
    if (!m_out) throw DataError(tmp.string(), "cannot open for writing");
  }

  bool full() const {
    return m_maxLines > 0 && m_build.stats.linesKept >= static_cast<std::uint64_t>(m_maxLines);
  }

  /// Reads one source file; `name` is how reports refer to it.
  void addFile(const fs::path& file, const std::string& name) {
    if (full()) return;
    std::ifstream in(file, std::ios::binary);
    if (!in) throw DataError(name, "cannot open for reading");
    rejectBinary(in, name);
    ++m_build.stats.files;
    std::string line;
    std::uint64_t lineNo = 0;
    while (!full() && std::getline(in, line)) {
      ++lineNo;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::string_view view(line);
      if (lineNo == 1 && view.substr(0, 3) == "\xEF\xBB\xBF") view.remove_prefix(3);
      const std::string problem = corpusLineProblem(view);
      if (!problem.empty()) {
        skip(name, lineNo, problem);
        continue;
      }
      const std::string kept = normaliseCorpusLine(view);
      if (kept.empty()) {
        ++m_build.stats.linesEmpty;
        continue;
      }
      keep(kept);
    }
    if (in.bad()) throw DataError(name, "read failed");
  }

  CorpusBuild finish(const fs::path& target) {
    m_out.close();
    if (!m_out) throw DataError(m_tmp.string(), "write failed (disk full?)");
    replaceFile(m_tmp, target);
    m_build.textPath = target;
    m_build.fingerprint = m_hash.value();
    return std::move(m_build);
  }

  const CorpusBuild& build() const { return m_build; }
  std::uint64_t invalidUtf8Lines() const { return m_invalidUtf8; }
  std::uint64_t controlLines() const { return m_control; }

 private:
  void rejectBinary(std::ifstream& in, const std::string& name) {
    std::array<char, kBinaryProbeBytes> probe{};
    in.read(probe.data(), probe.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    const void* nul = std::memchr(probe.data(), 0, got);
    if (nul != nullptr) {
      const auto offset = static_cast<const char*>(nul) - probe.data();
      throw DataError(name, "is a binary file, not UTF-8 text (NUL byte at offset " +
                                std::to_string(offset) +
                                "; UTF-16 text looks like this too): remove it from "
                                "corpus.paths or its folder, or convert it to UTF-8");
    }
    in.clear();
    in.seekg(0);
  }

  void skip(const std::string& name, std::uint64_t lineNo, const std::string& problem) {
    if (m_policy == InvalidLinePolicy::Reject) {
      throw DataError(name + ":" + std::to_string(lineNo),
                      problem +
                          " (corpus.invalid_utf8 = \"reject\" stops here; \"skip\" "
                          "reports such lines and leaves them out)");
    }
    if (problem.rfind("control", 0) == 0) {
      ++m_control;
    } else {
      ++m_invalidUtf8;
    }
    ++m_build.stats.linesSkipped;
    if (m_build.issues.size() < kMaxReportedIssues) {
      m_build.issues.push_back(CorpusIssue{name, lineNo, problem});
    }
  }

  void keep(const std::string& kept) {
    m_out.write(kept.data(), static_cast<std::streamsize>(kept.size()));
    m_out.put('\n');
    m_hash.update(kept);
    m_hash.update("\n");
    auto& s = m_build.stats;
    ++s.linesKept;
    s.bytes += kept.size() + 1;
    s.words += 1 + static_cast<std::uint64_t>(std::count(kept.begin(), kept.end(), ' '));
  }

  fs::path m_tmp;
  std::ofstream m_out;
  InvalidLinePolicy m_policy;
  std::int64_t m_maxLines;
  CorpusBuild m_build;
  Fnv1a64 m_hash;
  std::uint64_t m_invalidUtf8 = 0;
  std::uint64_t m_control = 0;
};

}  // namespace

std::string corpusLineProblem(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c < 0x20 && c != '\t') {
      return "control character " + hexByte(c) + " at byte " + std::to_string(i + 1) +
             " (binary data, not text)";
    }
  }
  const std::size_t bad = firstInvalidUtf8Offset(line);
  if (bad != std::string_view::npos) {
    return "invalid UTF-8 at byte " + std::to_string(bad + 1) + " (" +
           hexByte(static_cast<unsigned char>(line[bad])) +
           "; Latin-1 text? convert it with iconv -f latin1 -t utf-8)";
  }
  return {};
}

std::string normaliseCorpusLine(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  bool pendingSpace = false;
  for (const char ch : line) {
    if (ch == ' ' || ch == '\t') {
      pendingSpace = !out.empty();
      continue;
    }
    if (pendingSpace) out.push_back(' ');
    pendingSpace = false;
    out.push_back(ch);
  }
  return out;
}

std::vector<fs::path> listCorpusFiles(const CorpusConfig& config) {
  if (config.paths.empty()) {
    throw ConfigError("corpus.paths",
                      "is empty: list the text files or folders for corpus.source = \"text\"");
  }
  std::vector<fs::path> files;
  for (const std::string& given : config.paths) {
    const fs::path p(given);
    std::error_code ec;
    const auto status = fs::status(p, ec);
    if (ec || !fs::exists(status)) {
      throw DataError(given, "corpus path does not exist");
    }
    if (fs::is_regular_file(status)) {
      files.push_back(p);
      continue;
    }
    if (!fs::is_directory(status)) {
      throw DataError(given, "corpus path is neither a regular file nor a folder");
    }
    std::vector<fs::path> inside;
    for (fs::recursive_directory_iterator
             it(p, fs::directory_options::follow_directory_symlink, ec),
         end;
         !ec && it != end; it.increment(ec)) {
      std::error_code fileEc;
      if (it->is_regular_file(fileEc)) inside.push_back(it->path());
    }
    if (ec) throw DataError(given, "cannot list the folder: " + ec.message());
    if (inside.empty()) throw DataError(given, "folder contains no regular files");
    // Directory order is whatever the file system gives; sorting makes the corpus (and so
    // its fingerprint, tokenizer and batches) the same on every machine.
    std::sort(inside.begin(), inside.end());
    files.insert(files.end(), inside.begin(), inside.end());
  }
  return files;
}

CorpusBuild buildCorpus(const CorpusConfig& config, const fs::path& folder) {
  const InvalidLinePolicy policy = config.invalidUtf8;
  if (config.maxLines < 0) {
    throw ConfigError("corpus.max_lines",
                      "must be 0 (all) or positive, got " + std::to_string(config.maxLines));
  }
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw DataError(folder.string(), "cannot create the folder: " + ec.message());

  const fs::path target = folder / "corpus.txt";
  std::string where;
  CorpusWriter writer(temporaryPathFor(target), policy, config.maxLines);
  try {
    switch (config.source) {
      case CorpusSource::Wordnet: {
        where = config.wordnetDir;
        // WordNet's glosses are extracted (and converted from Latin-1) first, then pass the
        // same checks and normalisation as any text source.
        const fs::path raw = folder / "wordnet_glosses.txt";
        writeWordNetGlosses(config.wordnetDir, raw);
        writer.addFile(raw, raw.string());
        fs::remove(raw, ec);
        break;
      }
      case CorpusSource::Text: {
        const auto files = listCorpusFiles(config);
        where = config.paths.size() == 1 ? config.paths.front() : std::string("corpus.paths");
        for (const fs::path& f : files) writer.addFile(f, f.string());
        break;
      }
    }
  } catch (...) {
    fs::remove(temporaryPathFor(target), ec);
    throw;
  }

  const CorpusBuild& b = writer.build();
  if (b.stats.linesKept == 0) {
    fs::remove(temporaryPathFor(target), ec);
    if (b.stats.linesSkipped > 0) {
      const CorpusIssue& first = b.issues.front();
      throw DataError(
          where, "the corpus has no valid lines: all " + std::to_string(b.stats.linesSkipped) +
                     " non-blank lines were rejected (" +
                     std::to_string(writer.invalidUtf8Lines()) + " invalid UTF-8, " +
                     std::to_string(writer.controlLines()) +
                     " with control characters); first: " + first.where() + ": " + first.reason);
    }
    throw DataError(where, "the corpus is empty: " + std::to_string(b.stats.files) +
                               " file(s) hold no non-blank lines");
  }
  return writer.finish(target);
}

}  // namespace attnlab::core
