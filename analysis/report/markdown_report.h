#pragma once

#include <string>

namespace attnlab::analysis {

struct AnalysisReport;
struct CorefProbeReport;

/// The report for people: what was analysed (run, checkpoint step, evaluation data and its
/// size, units) and the per-layer tables, most telling numbers first.
std::string analysisMarkdown(const AnalysisReport& report);
std::string corefMarkdown(const CorefProbeReport& report);

}  // namespace attnlab::analysis
