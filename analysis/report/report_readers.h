#pragma once

// Reads the JSON reports back into the structs they were written from (json_report.h), so
// the desktop app can show a report `attnlab-cli analyze` or `probe coref` wrote without
// rerunning the model. No LibTorch, no Qt.

#include "analysis/report/json_report.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"
#include "analysis/runs/head_comparison_report.h"

#include <filesystem>

namespace attnlab::analysis {

/// Rebuilds the AnalysisReport an analysis.json was written from. Every number comes back
/// exactly (the writer prints every double in a form that parses back to it); JSON null reads as
/// NaN (the writer's NaN and infinities). Two fields the file does not carry on their own are
/// taken from their equals: statistics.sequences from evaluation.sequences; and a
/// distribution's `clamped`, added to format version 1 later, reads as 0 when absent.
///
/// Throws DataError with where() = the path and a reason that starts with the JSON pointer of
/// the offending field ("/per_head/3/entropy/median: expected a number or null, found a
/// string"): a file that cannot be read or is not JSON, another format (a coref report), a
/// format_version newer than kReportFormatVersion, a missing or mistyped field, or arrays
/// whose sizes do not fit the report's layers and heads.
AnalysisReport readAnalysisJson(const std::filesystem::path& path);

/// Rebuilds the CorefProbeReport a coref.json was written from, with the same rules.
/// result.examples is the dataset's `examples`; result.scope is `scoring.argmax` (a file
/// written before that field existed gives it by its `argmax_over` text).
CorefProbeReport readCorefJson(const std::filesystem::path& path);

/// Reads the kept examples a coref_examples.json holds (written beside coref.json by the
/// probe), with the same rules and its own format name and version (kCorefExamplesFormat).
/// Every word index (query, correct, picked; picked may be -1) names a word of its example
/// and every row has one value per word, so a program can index them unchecked.
coref::ProbeExamples readCorefExamplesJson(const std::filesystem::path& path);

/// Rebuilds the HeadComparison a heads_comparison.json (`attnlab-cli compare --heads`) was
/// written from, with the same rules: the JSD is [layers][heads][heads] and the CKA matrix
/// (a.layers + 1) x (b.layers + 1), as the two models' shapes say.
HeadComparison readHeadComparisonJson(const std::filesystem::path& path);

}  // namespace attnlab::analysis
