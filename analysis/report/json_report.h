#pragma once

#include <string>

namespace attnlab::analysis {

struct AnalysisReport;
struct CorefProbeReport;

/// The complete report as JSON, for machines: every number the other formats show plus the
/// distributions' histograms and kernel density estimates (what a violin plot needs).
std::string analysisJson(const AnalysisReport& report);
std::string corefJson(const CorefProbeReport& report);

}  // namespace attnlab::analysis
