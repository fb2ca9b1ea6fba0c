#pragma once

#include "analysis/coref/probe_examples.h"
#include "analysis/coref/word_attention.h"

#include <string>

namespace attnlab::analysis {

struct AnalysisReport;
struct CorefProbeReport;

/// The reports' `format` names and their `format_version`: the writers write these, and the
/// readers (report_readers.h) refuse another format or a newer version. Bump the version when
/// a field changes meaning or goes away; a field added is read as optional instead.
inline constexpr const char* kAnalysisFormat = "attnlab-analysis";
inline constexpr const char* kCorefFormat = "attnlab-coref-probe";
inline constexpr int kReportFormatVersion = 1;
/// coref_examples.json: the probe's kept examples (coref::ProbeExamples), its own version.
inline constexpr const char* kCorefExamplesFormat = "attnlab-coref-examples";
inline constexpr const char* kHeadComparisonFormat = "attnlab-heads-comparison";
inline constexpr int kCorefExamplesFormatVersion = 1;

/// The complete report as JSON, for machines: every number the other formats show plus the
/// distributions' histograms and kernel density estimates (what a violin plot needs).
std::string analysisJson(const AnalysisReport& report);
std::string corefJson(const CorefProbeReport& report);
/// coref_examples.json: the kept examples, per item every head's pick and word-level row
/// (floats written in their shortest form, so they read back bit for bit).
std::string corefExamplesJson(const coref::ProbeExamples& examples);

/// What counts as right on `dataset` (as --dataset spells it), one sentence for the reports:
/// the synthetic and Lin et al.'s data accept any word of the antecedent noun phrase, CoNLL
/// the head word of an antecedent mention.
std::string corefScoringRule(const std::string& dataset);

/// The name coref.json gives an argmax scope (`scoring.argmax`), as `--argmax` spells it:
/// "all" or "exclude-self-special".
const char* argmaxName(coref::ArgmaxScope scope);

}  // namespace attnlab::analysis
